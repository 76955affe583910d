// The architecture, checked by `npm run lint` (README, "What is where"): server/ in four layers,
// each importing only those below it.
//
//   processes/  what runs: entry points, boot, the process's workers
//   api/        the edges: REST, tRPC, OpenAPI, the HTTP server
//   modules/    the domain
//   platform/   infrastructure that knows no domain
//   db/         (top level) the schema and the database: infrastructure too
//
// Every import counts: type-only ones, dynamic import() and require() as well, tests included.
// A type a lower layer needs is declared in that layer (e.g. CounterFactory in
// platform/ratelimit/store.ts), never imported from above. There are no exceptions.
const OUTSIDE_LAYERS = '^server/(?!(platform|modules|api|processes)/)';

// Executions are reached through their public files only (docs/executions.md, "The engine"):
// engine.ts (start, cancel, wait, follow, enqueue), service.ts (reads), schemas.ts and events.ts
// (the statuses are vocabulary: modules/vocabulary/statuses.ts). The process wiring still reaches two more, on their way out
// (docs/engine-plan.md): live.ts and pool.ts (built by processes/, typed in modules/runtime.ts).
// This list shrinks, never grows.
const EXECUTIONS_PUBLIC = '^server/modules/executions/(engine|service|schemas|events)\\.ts$';
const EXECUTIONS_ON_THEIR_WAY_OUT = '^server/modules/executions/(live|pool)\\.ts$';

// Every other module is reached from outside it through its public files only: each module's
// face is the list below (executions has its own two rules above). A file that is not on its
// module's list is the module's own business; importing it from elsewhere fails `npm run lint`.
// To widen a face, add the file here on purpose (and say why in the commit); lists shrink as
// modules gain one face each (docs/engine-plan.md, step 10).
const MODULE_FACES = {
  // versions, labels: the agent's versions and labels (docs/versions.md), their own routes and start-up phase.
  agents: 'labels|schemas|service|version-schemas|versions',
  evals: 'dataset-schemas|datasets|experiment-schemas|experiments|loop|online|participant|rule-schemas|rules|scorer-schemas',
  audit: 'actions|record|schemas|service',
  budgets: 'alerts|ledger|participant|reserve|schemas|service',
  auth: 'callback-path|environment|guards|invitation-mail|invitations|members|options|session|sessions|signin-errors|signup|users',
  events: 'emit|participant|schemas|service',
  // verify-charged: a key's lookup and its rate-limit charge in one statement (the REST steps' PostgreSQL store path).
  keys: 'format|schemas|service|unknown-keys|usage-spike|verify-charged',
  // model-call: one streamed call of a model as the run's loop reads it (the compatible client's parts without web streams).
  models: 'model-call|providers|registry|sandbox',
  ratelimit: 'dashboard|index|plans',
  // timing: the ticker's test computes occurrences as the ticker does.
  schedules: 'schemas|service|ticker|timing',
  secrets: 'check|reseal|stored',
  tools: 'http-tool|mcp-tool|schema-pool|toolset',
  traces: 'export|participant|schemas|service',
  usage: 'compactor|participant|prune|requests|schemas|service',
  webhooks: 'dispatcher|relay|schemas|service',
};
const faceRules = Object.entries(MODULE_FACES).map(([module, face]) => ({
  name: `${module}-reached-through-its-face`,
  severity: 'error',
  comment: `Outside server/modules/${module}/, only its public files are imported: ${face.split('|').join(', ')}.`,
  from: { pathNot: `^server/modules/${module}/` },
  to: { path: `^server/modules/${module}/`, pathNot: `^server/modules/${module}/(${face})\\.tsx?$` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-domain',
      severity: 'error',
      comment: 'server/platform/ is infrastructure: it imports nothing from modules/, api/ or processes/.',
      from: { path: '^server/platform/' },
      to: { path: '^server/(modules|api|processes)/' },
    },
    {
      name: 'modules-import-no-edges',
      severity: 'error',
      comment: 'server/modules/ (the domain) imports nothing from api/ or processes/.',
      from: { path: '^server/modules/' },
      to: { path: '^server/(api|processes)/' },
    },
    {
      name: 'api-imports-no-processes',
      severity: 'error',
      comment: 'server/api/ (the edges) imports nothing from processes/: the processes wire the api, not the other way.',
      from: { path: '^server/api/' },
      to: { path: '^server/processes/' },
    },
    {
      name: 'modules-reach-executions-through-its-face',
      severity: 'error',
      comment: 'Another module imports executions only through its public files (engine, service, schemas, events).',
      from: { path: '^server/modules/(?!executions/)[^/]+/' },
      to: { path: '^server/modules/executions/', pathNot: EXECUTIONS_PUBLIC },
    },
    {
      name: 'edges-reach-executions-through-its-face',
      severity: 'error',
      comment: 'The edges, the processes and the process state reach executions through its public files (and the few on their way out).',
      from: { path: '^(server/(api|processes)/|server/modules/runtime\\.ts$|app/)' },
      to: { path: '^server/modules/executions/', pathNot: [EXECUTIONS_PUBLIC, EXECUTIONS_ON_THEIR_WAY_OUT] },
    },
    ...faceRules,
    {
      name: 'vocabulary-is-the-ground-floor',
      severity: 'error',
      comment:
        'server/modules/vocabulary/ holds the words several modules share (scopes, roles, statuses, event types, time zones): it imports no other module, so that every module may import it without a cycle.',
      from: { path: '^server/modules/vocabulary/' },
      to: { path: '^server/modules/', pathNot: '^server/modules/vocabulary/' },
    },
    {
      name: 'executions-name-no-participant',
      severity: 'error',
      comment:
        "The engine's files import no run participant (budgets, usage, events, approvals, traces): each plugs in through the contract in vocabulary/participants.ts, registered at boot (server/modules/participants.ts).",
      from: { path: '^server/modules/executions/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^server/modules/(budgets|usage|events|approvals|traces)/' },
    },
    {
      name: 'no-cycle-between-modules',
      severity: 'error',
      comment: 'No import cycle runs through two modules of server/modules/ (nor through a module and the files beside the modules).',
      from: { path: '^server/modules/([^/]+)/' },
      to: { circular: true, via: { pathNot: '^server/modules/$1/' } },
    },
    {
      name: 'db-imports-no-server',
      severity: 'error',
      comment: 'db/ is infrastructure: it imports nothing from server/modules/, api/ or processes/.',
      from: { path: '^db/' },
      to: { path: '^server/(modules|api|processes)/' },
    },
    {
      name: 'app-imports-no-processes',
      severity: 'error',
      comment: 'app/ (Next) runs inside a process: it may import api/ (tRPC, the route table) and modules/, never processes/.',
      from: { path: '^app/' },
      to: { path: '^server/processes/' },
    },
    // Every file of server/ belongs to one of the four layers: one outside them is reported when
    // it imports anything, is imported, or stands alone.
    {
      name: 'server-file-outside-layers',
      severity: 'error',
      comment: 'Every file of server/ belongs to platform/, modules/, api/ or processes/.',
      from: { path: OUTSIDE_LAYERS },
      to: {},
    },
    {
      name: 'server-file-outside-layers',
      severity: 'error',
      comment: 'Every file of server/ belongs to platform/, modules/, api/ or processes/.',
      from: {},
      to: { path: OUTSIDE_LAYERS },
    },
    {
      name: 'server-file-outside-layers',
      severity: 'error',
      comment: 'Every file of server/ belongs to platform/, modules/, api/ or processes/.',
      from: { orphan: true, path: OUTSIDE_LAYERS },
      to: {},
    },
    {
      name: 'no-cycle-between-layers',
      severity: 'error',
      comment:
        'No cycle runs through two of the four folders (nor through db/). The layer rules above already make one impossible; this names it when a rule is loosened.',
      from: { path: '^(server/(platform|modules|api|processes)|db)/' },
      to: { circular: true, via: { pathNot: '^$1/' } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.next|\\.data|db/migrations|test-results|playwright-report)/' },
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    // The `@/…` paths of app/.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
