// After a form's submit found a problem: bring the field it belongs to into view (a dialog's body
// scrolls, so an error at its bottom could otherwise go unseen) and put the focus in it — unless,
// by the time that happens (the next frame), the user has already gone on to another field: their
// typing stays where they put it (it went into the field with the problem before, mid-word).

const EDITABLE = 'input, textarea, select, [contenteditable]';

/**
 * `target`: the id of the field's control, of a message that takes the focus (`tabIndex={-1}`), or
 * of a checkbox group's error message (the focus goes to the group's first checkbox). Unknown ids
 * are ignored.
 */
export function revealProblem(target: string | null): void {
  if (!target) return;
  const before = document.activeElement;
  requestAnimationFrame(() => {
    const el = document.getElementById(target);
    if (!el) return;
    const now = document.activeElement;
    if (now !== before && now instanceof HTMLElement && now.matches(EDITABLE)) return;
    const control = el.matches('input, textarea, select, [tabindex]') ? el : el.closest('fieldset')?.querySelector<HTMLElement>('input:not(:disabled)');
    control?.focus({ preventScroll: true });
    el.scrollIntoView({ block: 'center', behavior: 'smooth' });
  });
}
