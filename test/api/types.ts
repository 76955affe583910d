// Response bodies of the key endpoints, as a client reads them.

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  environment: 'live' | 'test';
  scopes: string[];
  expiresAt: string | null;
  createdAt: string;
}

export interface ListedKey {
  id: string;
  name: string;
  prefix: string;
  environment: 'live' | 'test';
  scopes: string[];
  lastUsed: string | null;
  expiresAt: string | null;
  createdAt: string;
}

export interface KeyList {
  data: ListedKey[];
  hasMore: boolean;
  nextCursor?: string;
  prevCursor?: string;
}

export interface Revoked {
  id: string;
  deleted: boolean;
  revokedAt: string;
}

export const KEY_ID = /^key_[0-9A-HJKMNP-TV-Z]{26}$/;
