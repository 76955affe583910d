import { inviteModeSuite } from './invite-suite';

// Sign-up with SIGNUP_MODE unset (the default, `invite`), on a server that also runs the workers.
inviteModeSuite();
