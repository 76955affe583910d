'use client';

import { Button, SelectField, TextAreaField, TextField } from '../ui';
import { fieldId, METHODS, newTool, type Method, type ToolDraft } from './agent-draft';

// The agent's HTTP tools: each one a card with its name, what it does (the model reads this),
// where it is called and the JSON Schema of its arguments. `errorOf` gives a field's message by
// its API param (`tools.0.url`); `onEdited` clears it.

export function ToolsEditor({
  tools,
  onChange,
  errorOf,
  onEdited,
}: {
  tools: ToolDraft[];
  onChange: (tools: ToolDraft[]) => void;
  errorOf: (param: string) => string | null;
  onEdited: (param: string) => void;
}) {
  const update = (i: number, field: keyof Omit<ToolDraft, 'key'>, value: string) => {
    onChange(tools.map((t, j) => (j === i ? { ...t, [field]: value } : t)));
    onEdited(`tools.${i}.${field}`);
  };
  const remove = (i: number) => {
    onChange(tools.filter((_, j) => j !== i));
    onEdited('tools');
  };
  const listError = errorOf('tools');

  return (
    <div className="space-y-4" data-testid="tools-editor">
      {listError && (
        <p id={fieldId('tools')} className="text-xs text-red-600" tabIndex={-1}>
          {listError}
        </p>
      )}
      {tools.length === 0 && (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-500">
          No tools: the agent answers from the model alone. Add an HTTP tool to let it call your API.
        </p>
      )}
      {tools.map((tool, i) => {
        const id = (field: string) => fieldId(`tools.${i}.${field}`);
        const err = (field: string) => errorOf(`tools.${i}.${field}`);
        const toolError = errorOf(`tools.${i}`);
        return (
          <div key={tool.key} role="group" aria-labelledby={id('heading')} className="space-y-4 rounded-lg p-4 ring-1 ring-slate-200" data-testid="tool-editor">
            <div className="flex items-center justify-between gap-3">
              <h3 id={id('heading')} className="min-w-0 truncate text-sm font-semibold text-slate-900">
                Tool {i + 1}
                {tool.name.trim() && <span className="ml-1.5 font-mono font-normal text-slate-500">{tool.name.trim()}</span>}
              </h3>
              <Button variant="dangerGhost" className="-my-1.5 -mr-2" onClick={() => remove(i)} aria-label={`Remove tool ${i + 1}`} data-testid="remove-tool">
                Remove
              </Button>
            </div>
            {toolError && (
              <p id={fieldId(`tools.${i}`)} className="text-xs text-red-600" tabIndex={-1}>
                {toolError}
              </p>
            )}
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField
                id={id('name')}
                label="Name"
                placeholder="e.g. lookup_order"
                value={tool.name}
                onChange={(e) => update(i, 'name', e.target.value)}
                maxLength={64}
                className="font-mono"
                autoCapitalize="off"
                spellCheck={false}
                error={err('name')}
              />
              <SelectField id={id('method')} label="Method" value={tool.method} onChange={(e) => update(i, 'method', e.target.value as Method)} error={err('method')}>
                {METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </SelectField>
            </div>
            <TextField
              id={id('url')}
              type="url"
              label="URL"
              placeholder="https://api.example.com/orders/lookup"
              value={tool.url}
              onChange={(e) => update(i, 'url', e.target.value)}
              inputMode="url"
              autoCapitalize="off"
              spellCheck={false}
              hint="Called with the model's arguments as JSON, signed like a webhook with the agent's tool secret."
              error={err('url')}
            />
            <TextAreaField
              id={id('description')}
              label="Description"
              rows={2}
              placeholder="What the tool does and when to use it (the model reads this)"
              value={tool.description}
              onChange={(e) => update(i, 'description', e.target.value)}
              error={err('description')}
            />
            <TextAreaField
              id={id('parameters')}
              label="Parameters (JSON Schema)"
              rows={8}
              value={tool.parameters}
              onChange={(e) => update(i, 'parameters', e.target.value)}
              className="font-mono text-xs leading-relaxed"
              spellCheck={false}
              autoCapitalize="off"
              hint={
                <>
                  An object schema: <code className="font-mono">{'{"type": "object", "properties": {…}}'}</code>. The model&apos;s arguments follow it.
                </>
              }
              error={err('parameters')}
            />
          </div>
        );
      })}
      <Button variant="secondary" onClick={() => onChange([...tools, newTool()])} data-testid="add-tool">
        <span aria-hidden>+</span> Add HTTP tool
      </Button>
    </div>
  );
}
