import NextAuth from 'next-auth';
import { nextAuthOptions } from '@/server/api/next-handle';

// next-auth's own endpoints: sign-in, callbacks, CSRF, session and sign-out.
const handler = NextAuth(nextAuthOptions());

export { handler as GET, handler as POST };
