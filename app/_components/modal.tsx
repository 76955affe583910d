'use client';

import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';
import { Alert, Button, Spinner } from './ui';

// A modal on the native <dialog>: focus is trapped and restored by the browser, the page
// behind is inert, and Escape closes it (unless `dismissible` is false).

const FRAME = 'flex max-h-[85vh] flex-col';

export function Modal({
  title,
  description,
  onClose,
  dismissible = true,
  children,
  footer,
  testId,
  size = 'md',
  onSubmit,
}: {
  title: ReactNode;
  description?: ReactNode;
  onClose: () => void;
  dismissible?: boolean;
  children?: ReactNode;
  footer?: ReactNode;
  testId?: string;
  size?: 'md' | 'lg';
  /** Makes the body and footer one form (the footer's submit button submits it). */
  onSubmit?: (e: FormEvent<HTMLFormElement>) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    // The browser may still close it on its own (e.g. Escape pressed twice): treat as a close.
    const handleClose = () => onCloseRef.current();
    dialog.addEventListener('close', handleClose);
    // Unmounting removes the open dialog from the page, which ends the modal state.
    return () => dialog.removeEventListener('close', handleClose);
  }, []);

  const body = (
    <>
      <div className="border-b border-slate-200 px-6 pt-5 pb-4">
        <h2 id={titleId} className="text-lg font-semibold text-slate-900">
          {title}
        </h2>
        {description && (
          <p id={descriptionId} className="mt-1 text-sm text-slate-600">
            {description}
          </p>
        )}
      </div>
      <div className="overflow-y-auto px-6 py-5">{children}</div>
      {footer && <div className="flex justify-end gap-3 border-t border-slate-200 bg-slate-50 px-6 py-4">{footer}</div>}
    </>
  );

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissible) onClose();
      }}
      className={`m-auto w-[calc(100%-2rem)] ${size === 'lg' ? 'max-w-2xl' : 'max-w-lg'} rounded-xl bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-900/50 backdrop:backdrop-blur-[1px]`}
    >
      {onSubmit ? (
        <form className={FRAME} onSubmit={onSubmit} noValidate>
          {body}
        </form>
      ) : (
        <div className={FRAME}>{body}</div>
      )}
    </dialog>
  );
}

/**
 * A dialog's footer: Cancel (or `cancelLabel`), then the action. Without `onConfirm` the action submits the
 * dialog's form (Modal's `onSubmit`); both are disabled while `pending`.
 */
export function ModalActions({
  label,
  onCancel,
  onConfirm,
  pending,
  variant = 'primary',
  testId,
  cancelLabel = 'Cancel',
}: {
  label: string;
  onCancel: () => void;
  onConfirm?: () => void;
  pending: boolean;
  variant?: 'primary' | 'danger';
  testId?: string;
  cancelLabel?: string;
}) {
  return (
    <>
      <Button variant="secondary" onClick={onCancel} disabled={pending}>
        {cancelLabel}
      </Button>
      <Button type={onConfirm ? 'button' : 'submit'} variant={variant} onClick={onConfirm} disabled={pending} data-testid={testId}>
        {pending && <Spinner />}
        {label}
      </Button>
    </>
  );
}

/**
 * A secret shown once: only "Done" closes it (the parent then drops the secret), and `warning`
 * stands in an amber alert above the rest. Test ids: `testId` on the dialog, `doneTestId` on Done.
 */
export function SecretModalFrame({
  title,
  description,
  warning,
  onDone,
  testId,
  doneTestId,
  children,
}: {
  title: ReactNode;
  description: ReactNode;
  warning: ReactNode;
  onDone: () => void;
  testId: string;
  doneTestId: string;
  children: ReactNode;
}) {
  return (
    <Modal
      title={title}
      description={description}
      onClose={onDone}
      dismissible={false}
      testId={testId}
      size="lg"
      footer={
        <Button onClick={onDone} data-testid={doneTestId}>
          Done
        </Button>
      }
    >
      <div className="space-y-5">
        <Alert tone="amber">{warning}</Alert>
        {children}
      </div>
    </Modal>
  );
}
