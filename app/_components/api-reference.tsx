'use client';

import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import type { ComponentProps } from 'react';

type Configuration = ComponentProps<typeof ApiReferenceReact>['configuration'];

// Scalar's reference, fed by the same /v1/openapi.json the API serves. Everything that would
// reach Scalar's services (fonts, telemetry, the hosted proxy and client, agent and MCP
// features, the developer toolbar) is off: a self-hosted install may have no internet. Wide
// tables in descriptions scroll sideways instead of squeezing their columns.
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
  `,
};

export function ApiReference() {
  return <ApiReferenceReact configuration={CONFIGURATION} />;
}
