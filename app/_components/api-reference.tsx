'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import { useEffect, useMemo, useState, type ComponentProps } from 'react';
import { Spinner } from './ui';

type Configuration = ComponentProps<typeof ApiReferenceReact>['configuration'];

// Scalar's reference, fed by the same /v1/openapi.json the API serves. Everything that would
// reach Scalar's services (fonts, telemetry, the hosted proxy and client, agent and MCP
// features, the developer toolbar) is off: a self-hosted install may have no internet.
//
// Tables in descriptions (the error codes of the introduction: code, status, type, meaning) need
// about 48rem. Where their column is narrower (a phone; a desktop, where the column sits between
// the sidebar and the examples: 410 px of a 1280 px window) a sideways scroll box hid the type and
// meaning columns with nothing to say they were there, so each row becomes a block instead: its
// cells one after the other, wrapping, the last one (the meaning) on a line of its own; the header
// row reads the same way. In a wider column they stay tables (one wider still scrolls sideways).
//
// Sections start closed (each opens from the sidebar or its "Show more"): all open, the page was
// ~76,000 px tall on a phone. Scalar takes a few seconds to load and render the document: until
// it says it has (`onLoaded`), a loader holds its place, served with the page itself.
const CONFIGURATION: Configuration = {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
  forceDarkModeState: 'light',
  hideDarkModeToggle: true,
  defaultOpenAllTags: false,
  customCss: `
    .scalar-app, .light-mode {
      --scalar-font: ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
      --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
      --scalar-color-accent: #4f46e5;
      --scalar-custom-header-height: 57px;
    }
    .scalar-app .markdown table {
      display: block;
      overflow-x: auto;
    }
    .scalar-app .markdown :is(th, td code) {
      white-space: nowrap;
    }
    .scalar-app .markdown td:last-child {
      min-width: 16rem;
    }
    .scalar-app .markdown:has(> table) {
      container-type: inline-size;
    }
    @container (max-width: 47.99rem) {
      .scalar-app .markdown > table {
        display: block;
        width: auto;
      }
      .scalar-app .markdown > table > :is(thead, tbody) {
        display: block;
      }
      .scalar-app .markdown > table tr {
        display: flex;
        flex-wrap: wrap;
        align-items: baseline;
        gap: 4px 12px;
        padding: 8.5px 16px;
        border-bottom: var(--markdown-border);
      }
      .scalar-app .markdown > table > thead > tr {
        background: var(--scalar-background-2);
        border-radius: var(--scalar-radius-md) var(--scalar-radius-md) 0 0;
      }
      .scalar-app .markdown > table > tbody > tr:last-of-type {
        border-bottom: none;
      }
      .scalar-app .markdown > table :is(th, td) {
        display: block;
        min-width: 0;
        padding: 0;
        border: none;
        background: none;
      }
      .scalar-app .markdown > table :is(th, td):last-child {
        flex-basis: 100%;
      }
      .scalar-app .markdown > table :is(th, td code) {
        white-space: normal;
        overflow-wrap: anywhere;
      }
    }
  `,
};

/** Seconds after which the loader offers the raw document. */
const SLOW_SECONDS = 15;

export function ApiReference() {
  const [loaded, setLoaded] = useState(false);
  const [slow, setSlow] = useState(false);
  const configuration = useMemo<Configuration>(() => ({ ...CONFIGURATION, onLoaded: () => setLoaded(true) }), []);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), SLOW_SECONDS * 1000);
    return () => clearTimeout(timer);
  }, []);
  return (
    <>
      {!loaded && (
        <div role="status" data-testid="docs-loading" className="mx-auto flex max-w-xl flex-col items-center gap-3 px-6 py-24 text-center text-sm text-slate-600">
          <Spinner className="size-6 text-indigo-600" />
          <p className="font-medium text-slate-800">Loading the API reference…</p>
          <p>It is rendered in your browser from the document the API serves; this takes a few seconds.</p>
          {slow && (
            <p data-testid="docs-slow">
              Taking long? The same document is at{' '}
              <a href="/v1/openapi.json" className="font-medium text-indigo-600 hover:text-indigo-500">
                /v1/openapi.json
              </a>
              .
            </p>
          )}
        </div>
      )}
      <ApiReferenceReact configuration={configuration} />
    </>
  );
}
