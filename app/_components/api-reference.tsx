'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import type { ComponentProps } from 'react';

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
  defaultOpenAllTags: true,
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

export function ApiReference() {
  return <ApiReferenceReact configuration={CONFIGURATION} />;
}
