'use client';

import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { Badge, Button, SelectField, TextAreaField, TextField } from '../ui';
import { AGENT_LIMITS, fieldId, METHODS, newMcpTool, newTool, type AgentDraft } from './agent-draft';
import { McpToolFields } from './mcp-tool-fields';

// The agent's tools: each one a card; the agent form's field array. An HTTP tool has its name,
// what it does (the model reads this), where it is called and the JSON Schema of its
// arguments; an MCP server its name, URL, allowed tools and headers (mcp-tool-fields.tsx).
// Either may have its calls wait for a person's approval (docs/approvals.md).
// `errorOf` gives a field's message by its API param (`tools.0.url`); editing a tool clears
// the messages about the tool as a whole and the list.

/** The tool's name in its heading, as typed. */
function ToolName({ index }: { index: number }) {
  const name = useWatch<AgentDraft, `tools.${number}.name`>({ name: `tools.${index}.name` });
  return name?.trim() ? <span className="ml-1.5 font-mono font-normal text-slate-500">{name.trim()}</span> : null;
}

export function ToolsEditor({ errorOf }: { errorOf: (param: string) => string | null }) {
  const { control, register, clearErrors } = useFormContext<AgentDraft>();
  const { fields: tools, append, remove } = useFieldArray({ control, name: 'tools' });
  const field = (i: number, name: keyof AgentDraft['tools'][number]) =>
    register(`tools.${i}.${name}`, { onChange: () => clearErrors(['tools', `tools.${i}`]) });
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
          No tools: the agent answers from the model alone. Add an HTTP tool to let it call your API, or an MCP server to offer it the server&apos;s tools.
        </p>
      )}
      {tools.map((tool, i) => {
        const id = (name: string) => fieldId(`tools.${i}.${name}`);
        const err = (name: string) => errorOf(`tools.${i}.${name}`);
        const toolError = errorOf(`tools.${i}`);
        return (
          <div key={tool.id} role="group" aria-labelledby={id('heading')} className="space-y-4 rounded-lg p-4 ring-1 ring-slate-200" data-testid="tool-editor">
            <div className="flex items-center justify-between gap-3">
              <h3 id={id('heading')} className="min-w-0 truncate text-sm font-semibold text-slate-900">
                Tool {i + 1}
                <ToolName index={i} />
                {tool.type === 'mcp' && <Badge className="ml-2 font-mono">MCP</Badge>}
              </h3>
              <Button variant="dangerGhost" className="-my-1.5 -mr-2" onClick={() => {
                  remove(i);
                  clearErrors('tools');
                }} aria-label={`Remove tool ${i + 1}`} data-testid="remove-tool">
                Remove
              </Button>
            </div>
            {toolError && (
              <p id={fieldId(`tools.${i}`)} className="text-xs text-red-600" tabIndex={-1}>
                {toolError}
              </p>
            )}
            {tool.type === 'mcp' ? (
              <McpToolFields index={i} errorOf={errorOf} />
            ) : (
              <>
                <div className="grid gap-4 sm:grid-cols-2">
                  <TextField
                    id={id('name')}
                    label="Name"
                    placeholder="e.g. lookup_order"
                    {...field(i, 'name')}
                    maxLength={AGENT_LIMITS.toolName.max}
                    className="font-mono"
                    autoCapitalize="off"
                    spellCheck={false}
                    error={err('name')}
                  />
                  <SelectField id={id('method')} label="Method" {...field(i, 'method')} error={err('method')}>
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
                  {...field(i, 'url')}
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
                  {...field(i, 'description')}
                  maxLength={AGENT_LIMITS.toolDescription.max}
                  error={err('description')}
                />
                <TextAreaField
                  id={id('parameters')}
                  label="Parameters (JSON Schema)"
                  rows={8}
                  {...field(i, 'parameters')}
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
                <SelectField
                  id={id('approval')}
                  label="Approval"
                  {...field(i, 'approval')}
                  hint="Always: the run pauses at each call of this tool until someone approves or denies it (the Approvals page, or the API)."
                  error={err('approval')}
                  data-testid="tool-approval"
                >
                  <option value="never">Never: calls run at once</option>
                  <option value="always">Always: each call waits for a person</option>
                </SelectField>
              </>
            )}
          </div>
        );
      })}
      <Button
        variant="secondary"
        onClick={() => {
          append(newTool(), { shouldFocus: false });
          clearErrors('tools');
        }}
        disabled={tools.length >= AGENT_LIMITS.tools.max}
        data-testid="add-tool"
      >
        <span aria-hidden>+</span> Add HTTP tool
      </Button>
      <Button
        variant="secondary"
        className="ml-3"
        onClick={() => {
          append(newMcpTool(), { shouldFocus: false });
          clearErrors('tools');
        }}
        disabled={tools.length >= AGENT_LIMITS.tools.max}
        data-testid="add-mcp-tool"
      >
        <span aria-hidden>+</span> Add MCP server
      </Button>
    </div>
  );
}
