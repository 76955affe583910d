import { env } from '../env.js';
import type { RefusalReason } from './url-guard';

// Whether tool and webhook URLs may point at loopback, private and link-local addresses (and
// use plain http in live mode). WEBHOOK_ALLOW_PRIVATE_URLS decides when it is set; unset, they
// may under `npm run dev` (NODE_ENV=development), so a first webhook to a receiver on the
// developer's own machine just works, and never otherwise: `npm start` (production) and the
// tests keep refusing them, so no deployment opens SSRF by default.

export function allowPrivateUrls(): boolean {
  return env.WEBHOOK_ALLOW_PRIVATE_URLS ?? env.NODE_ENV === 'development';
}

const PRIVATE_HINT =
  '. This server refuses loopback, private and link-local addresses; to use one in development, run it with ' +
  'WEBHOOK_ALLOW_PRIVATE_URLS=true (the default under `npm run dev`)';
const HTTP_HINT = ' in live mode; to use plain http in development, run the server with WEBHOOK_ALLOW_PRIVATE_URLS=true (the default under `npm run dev`)';

/**
 * What to append to a refusal at create or update so the caller knows the way out, for the
 * refusals WEBHOOK_ALLOW_PRIVATE_URLS lifts. One text for every refused host name, whether it
 * resolved to a private address or not at all: it tells nothing of how the name resolves.
 */
export function refusalHint(reason: RefusalReason): string {
  switch (reason) {
    case 'non_public_address':
    case 'blocked_host':
    case 'unresolvable':
      return PRIVATE_HINT;
    case 'https_required':
      return HTTP_HINT;
    default:
      return '';
  }
}
