// Sign-in error codes shared by next-auth's authorize (server) and the sign-in form (browser).
/** Too many wrong passwords for this email lately: the form says to wait. */
export const TOO_MANY_SIGN_IN_ATTEMPTS = 'TooManyAttempts';
