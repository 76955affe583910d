'use client';

import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { Button, SelectField, TextAreaField, TextField } from '../ui';
import { AGENT_LIMITS, fieldId, type AgentDraft } from './agent-draft';

// The fields of an MCP tool in the agent form: its name (the model sees `<name>_<tool>`), the
// server's URL, the tools allowed, and the headers sent to the server. Header values are
// write-only: a header saved before shows as set, never its value (the dashboard never has
// it); left empty it keeps that value, typed over it replaces it (docs/api.md, "Agents"). Its
// approval: never, always, or only the calls of the tools listed.

export function McpToolFields({ index, errorOf }: { index: number; errorOf: (param: string) => string | null }) {
  const { control, register, clearErrors } = useFormContext<AgentDraft>();
  const { fields: headers, append, remove } = useFieldArray({ control, name: `tools.${index}.headers` });
  const id = (name: string) => fieldId(`tools.${index}.${name}`);
  const err = (name: string) => errorOf(`tools.${index}.${name}`);
  const clear = () => clearErrors(['tools', `tools.${index}`, `tools.${index}.headers`]);
  const headersError = err('headers');
  const approval = useWatch<AgentDraft, `tools.${number}.approval`>({ name: `tools.${index}.approval` });

  return (
    <>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          id={id('name')}
          label="Name"
          placeholder="e.g. docs"
          {...register(`tools.${index}.name`, { onChange: clear })}
          maxLength={AGENT_LIMITS.toolName.max}
          className="font-mono"
          autoCapitalize="off"
          spellCheck={false}
          hint="The model sees the server's tools as <name>_<tool>."
          error={err('name')}
        />
        <TextField
          id={id('url')}
          type="url"
          label="Server URL"
          placeholder="https://mcp.example.com/mcp"
          {...register(`tools.${index}.url`, { onChange: clear })}
          inputMode="url"
          autoCapitalize="off"
          spellCheck={false}
          hint="Its Streamable HTTP endpoint."
          error={err('url')}
        />
      </div>
      <TextAreaField
        id={id('allowedTools')}
        label="Allowed tools (optional)"
        rows={3}
        placeholder={'search\nfetch_page'}
        {...register(`tools.${index}.allowedTools`, { onChange: clear })}
        className="font-mono text-xs"
        autoCapitalize="off"
        spellCheck={false}
        hint={`The server's tools the model may call, one per line (at most ${AGENT_LIMITS.allowedTools.max}). Empty: every tool it lists.`}
        error={err('allowedTools')}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField
          id={id('approval')}
          label="Approval"
          {...register(`tools.${index}.approval`, { onChange: clear })}
          hint="Calls that wait for a person's approval: the run pauses until each is decided."
          error={err('approval')}
          data-testid="tool-approval"
        >
          <option value="never">Never</option>
          <option value="always">Always: every tool&apos;s calls</option>
          <option value="tools">Only the tools listed</option>
        </SelectField>
        {approval === 'tools' && (
          <TextField
            id={id('approvalTools')}
            label="Tools that need approval"
            placeholder="delete_page, send_email"
            {...register(`tools.${index}.approvalTools`, { onChange: clear })}
            className="font-mono text-xs"
            autoCapitalize="off"
            spellCheck={false}
            hint="As the server names them, separated by commas."
            error={err('approvalTools')}
            data-testid="tool-approval-tools"
          />
        )}
      </div>
      <fieldset id={id('headers')} tabIndex={-1} className="space-y-2" aria-describedby={headersError ? `${id('headers')}-error` : undefined} data-testid="mcp-headers">
        <legend className="text-sm font-medium text-slate-900">Headers (optional)</legend>
        <p className="text-xs text-slate-500">Sent with every request to the server, e.g. its credentials. Values are never shown again once saved.</p>
        {headers.map((header, j) => (
          <div key={header.id} className="grid grid-cols-[1fr_1fr_auto] items-start gap-2" data-testid="mcp-header">
            <TextField
              id={id(`headers.${j}.name`)}
              label={<span className="sr-only">Header {j + 1} name</span>}
              placeholder="Authorization"
              {...register(`tools.${index}.headers.${j}.name`, { onChange: clear })}
              className="font-mono text-xs"
              autoCapitalize="off"
              spellCheck={false}
            />
            <TextField
              id={id(`headers.${j}.value`)}
              label={<span className="sr-only">Header {j + 1} value</span>}
              type="password"
              autoComplete="off"
              placeholder={header.stored ? 'Set — leave empty to keep' : 'Value'}
              {...register(`tools.${index}.headers.${j}.value`, { onChange: clear })}
              className="font-mono text-xs"
              data-testid={header.stored ? 'mcp-header-set' : 'mcp-header-value'}
            />
            <Button variant="dangerGhost" onClick={() => remove(j)} aria-label={`Remove header ${j + 1}`}>
              Remove
            </Button>
          </div>
        ))}
        {headersError && (
          <p id={`${id('headers')}-error`} className="text-xs text-red-600" tabIndex={-1}>
            {headersError}
          </p>
        )}
        <Button
          variant="secondary"
          onClick={() => append({ name: '', value: '', stored: false }, { shouldFocus: true })}
          disabled={headers.length >= AGENT_LIMITS.headers.max}
          data-testid="add-mcp-header"
        >
          <span aria-hidden>+</span> Add header
        </Button>
      </fieldset>
    </>
  );
}
