// The rooms of server/modules/ (one folder each: agents, executions, keys…) as a whole, checked by
// `npm run lint` after .dependency-cruiser.cjs: no cycle runs through two of them, so the modules
// stand on floors, each importing only those below it, with vocabulary/ (the words several share:
// scopes, roles, statuses, event types, time zones) on the ground floor. The file-level rule
// (`no-cycle-between-modules`) cannot see a cycle made of imports between different files of
// the rooms (events/types → executions/statuses while executions/lifecycle → events/emit), which
// once tied 9 of the 16 rooms into one (docs/architecture.md). Tests are left out: a test
// imports whatever it checks, from any floor.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config, as dependency-cruiser reads it
const base = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle-between-module-folders',
      severity: 'error',
      scope: 'folder',
      comment: 'No import cycle runs through two folders of server/modules/: a module imports only modules on floors below it (vocabulary/ is the ground floor).',
      from: { path: '^server/modules/[^/]+' },
      to: { path: '^server/modules/[^/]+', circular: true },
    },
  ],
  options: {
    ...base.options,
    exclude: { path: `${base.options.exclude.path}|\\.test\\.tsx?$|^test/` },
    includeOnly: '^server/modules/',
  },
};
