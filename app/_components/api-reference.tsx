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
// Examples: the document's own (`x-codeSamples`: curl and the typed client, and the introduction's)
// and no others: Scalar's generated snippets (`hiddenClients`) were never run, ours are
// (test/sdk/examples.int.test.ts). They are written for EXAMPLE_ORIGIN; the page fetches the
// document and puts the origin it was served from in its place, as the Server box shows it
// (and the key dialog's first call). `hideModels`: the schemas' section was a second "Models"
// in the sidebar, beside the tag of GET /v1/models, and each schema is shown where it is used.
//
// Layout (customCss):
// - The introduction is one column, the Server box above it: beside it, its column was 412 px of
//   a 1280 px window, which cut every curl line (`-H "Authori…`) and stacked the error table.
// - Code wraps instead of scrolling sideways behind a hidden scrollbar; example lines are written
//   short (server/api/code-samples.ts), so wrapping is for phones. Line numbers are off: they
//   took a tenth of the examples' column.
// - Sections Scalar has not rendered yet (it renders those near the viewport) held 760 px each:
//   thirteen closed tags made the page ~19,500 px tall, ~10,000 of them blank. A placeholder of
//   1 px lets the next sections render as they come near, so nothing blank is ever shown.
// - Tables in descriptions (the error codes: code, status, type, meaning) need about 48rem.
//   Where their column is narrower (a phone) each row becomes a block: its cells one after the
//   other, wrapping, the last one (the meaning) on a line of its own; the header row reads the
//   same way. In a wider column they stay tables (one wider still scrolls sideways).
//
// Sections start closed (each opens from the sidebar or its "Show more"): all open, the page was
// ~76,000 px tall on a phone. Scalar takes a few seconds to load and render the document: until
// it says it has (`onLoaded`), a loader holds its place, served with the page itself.
const CONFIGURATION: Configuration = {
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  hiddenClients: true,
  hideModels: true,
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
    .scalar-app .introduction-section .section-columns {
      flex-direction: column-reverse;
    }
    .scalar-app .markdown pre code,
    .scalar-app .markdown pre code *,
    .scalar-app .request-card pre,
    .scalar-app .request-card pre code * {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .scalar-app .request-card pre {
      width: auto;
    }
    .scalar-app .request-card .hljs .line::before {
      display: none;
    }
    .scalar-app [data-testid='lazy-container'][data-placeholder='true'] {
      height: 1px !important;
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

/** The origin the document's examples are written for (server/api/code-samples.ts). */
const EXAMPLE_ORIGIN = 'http://localhost:3000';

type Source = { url?: string; content?: string };

/** The document with this page's origin in its examples (or, if it cannot be fetched, its URL for Scalar to try). */
async function documentSource(): Promise<Source> {
  try {
    const res = await fetch('/v1/openapi.json');
    if (!res.ok) return { url: '/v1/openapi.json' };
    return { content: (await res.text()).replaceAll(EXAMPLE_ORIGIN, window.location.origin) };
  } catch {
    return { url: '/v1/openapi.json' };
  }
}

export function ApiReference() {
  const [loaded, setLoaded] = useState(false);
  const [slow, setSlow] = useState(false);
  const [source, setSource] = useState<Source | null>(null);
  const configuration = useMemo<Configuration>(() => ({ ...CONFIGURATION, ...source, onLoaded: () => setLoaded(true) }), [source]);
  useEffect(() => {
    let current = true;
    void documentSource().then((s) => current && setSource(s));
    const timer = setTimeout(() => setSlow(true), SLOW_SECONDS * 1000);
    return () => {
      current = false;
      clearTimeout(timer);
    };
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
      {source && <ApiReferenceReact configuration={configuration} />}
    </>
  );
}
