import NextAuth from 'next-auth';
import { authOptions } from '@/server/modules/auth/options';

// next-auth's own endpoints: sign-in, callbacks, CSRF, session and sign-out.
const handler = NextAuth(authOptions);

export { handler as GET, handler as POST };
