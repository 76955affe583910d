// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import { inviteModeSuite } from './invite-suite';

// Sign-up with SIGNUP_MODE unset (the default, `invite`) on a web process alone
// (RUN_WORKERS=false), as each web process of a scaled-out installation runs.
inviteModeSuite({ RUN_WORKERS: 'false' });
