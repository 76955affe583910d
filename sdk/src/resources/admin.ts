import type { RequestOptions } from '../core.js';
import type { PagedList } from '../pagination.js';
import type { Answer, ApiKey, AuditEvent, Body, Budget, Event, QueryOf, Schedule, Webhook, WebhookDelivery } from '../types.js';
import { Resource, seg } from './base.js';

/** `/v1/keys` (scope keys:manage). */
export class Keys extends Resource {
  /** A new key: its secret is in this answer only. */
  create(params: Body<'keys-create'>, options?: RequestOptions): Promise<Answer<'keys-create'>> {
    return this.post('keys-create', '/keys', params, options);
  }

  list(params?: QueryOf<'keys-list'>, options?: RequestOptions): PagedList<ApiKey> {
    return this.paged<ApiKey>('keys-list', '/keys', params, options);
  }

  /** Revokes a key at once, in every process (`DELETE /v1/keys/{id}`). */
  revoke(id: string, options?: RequestOptions): Promise<Answer<'keys-revoke'>> {
    return this.del('keys-revoke', `/keys/${seg(id)}`, options);
  }
}

/** `/v1/webhooks` (scope webhooks:manage). */
export class Webhooks extends Resource {
  /** A new endpoint: its signing secret (`whsec_…`) is in this answer only. */
  create(params: Body<'webhooks-create'>, options?: RequestOptions): Promise<Answer<'webhooks-create'>> {
    return this.post('webhooks-create', '/webhooks', params, options);
  }

  list(params?: QueryOf<'webhooks-list'>, options?: RequestOptions): PagedList<Webhook> {
    return this.paged<Webhook>('webhooks-list', '/webhooks', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'webhooks-get'>> {
    return this.get('webhooks-get', `/webhooks/${seg(id)}`, undefined, options);
  }

  update(id: string, params: Body<'webhooks-update'>, options?: RequestOptions): Promise<Answer<'webhooks-update'>> {
    return this.patch('webhooks-update', `/webhooks/${seg(id)}`, params, options);
  }

  delete(id: string, options?: RequestOptions): Promise<Answer<'webhooks-delete'>> {
    return this.del('webhooks-delete', `/webhooks/${seg(id)}`, options);
  }

  /** A new signing secret; the previous one keeps signing for 24 h. */
  rotateSecret(id: string, options?: RequestOptions): Promise<Answer<'webhooks-rotateSecret'>> {
    return this.post('webhooks-rotateSecret', `/webhooks/${seg(id)}/rotate-secret`, undefined, options);
  }

  /** Sends a `webhook.test` event to the endpoint. */
  sendTest(id: string, options?: RequestOptions): Promise<Answer<'webhooks-test'>> {
    return this.post('webhooks-test', `/webhooks/${seg(id)}/test`, undefined, options);
  }

  /** The endpoint's delivery log, newest first. */
  listDeliveries(id: string, params?: Omit<QueryOf<'webhooks-deliveries'>, 'id'>, options?: RequestOptions): PagedList<WebhookDelivery> {
    return this.paged<WebhookDelivery>('webhooks-deliveries', `/webhooks/${seg(id)}/deliveries`, params, options);
  }

  /** Sends a delivery again (a failed one, typically). */
  resendDelivery(id: string, deliveryId: string, options?: RequestOptions): Promise<Answer<'webhooks-resend'>> {
    return this.post('webhooks-resend', `/webhooks/${seg(id)}/deliveries/${seg(deliveryId)}/resend`, undefined, options);
  }
}

/** `/v1/events`: what happened in the environment, the last 30 days (scope webhooks:manage). */
export class Events extends Resource {
  list(params?: QueryOf<'events-list'>, options?: RequestOptions): PagedList<Event> {
    return this.paged<Event>('events-list', '/events', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'events-get'>> {
    return this.get('events-get', `/events/${seg(id)}`, undefined, options);
  }
}

/** `/v1/schedules` (scope agents:write; `run`: agents:execute). */
export class Schedules extends Resource {
  create(params: Body<'schedules-create'>, options?: RequestOptions): Promise<Answer<'schedules-create'>> {
    return this.post('schedules-create', '/schedules', params, options);
  }

  list(params?: QueryOf<'schedules-list'>, options?: RequestOptions): PagedList<Schedule> {
    return this.paged<Schedule>('schedules-list', '/schedules', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'schedules-get'>> {
    return this.get('schedules-get', `/schedules/${seg(id)}`, undefined, options);
  }

  update(id: string, params: Body<'schedules-update'>, options?: RequestOptions): Promise<Answer<'schedules-update'>> {
    return this.patch('schedules-update', `/schedules/${seg(id)}`, params, options);
  }

  delete(id: string, options?: RequestOptions): Promise<Answer<'schedules-delete'>> {
    return this.del('schedules-delete', `/schedules/${seg(id)}`, options);
  }

  /** Runs the schedule's agent now, as an occurrence would. */
  run(id: string, options?: RequestOptions): Promise<Answer<'schedules-run'>> {
    return this.post('schedules-run', `/schedules/${seg(id)}/run`, undefined, options);
  }
}

/** `/v1/budgets` (scope budgets:manage). */
export class Budgets extends Resource {
  create(params: Body<'budgets-create'>, options?: RequestOptions): Promise<Answer<'budgets-create'>> {
    return this.post('budgets-create', '/budgets', params, options);
  }

  list(params?: QueryOf<'budgets-list'>, options?: RequestOptions): PagedList<Budget> {
    return this.paged<Budget>('budgets-list', '/budgets', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'budgets-get'>> {
    return this.get('budgets-get', `/budgets/${seg(id)}`, undefined, options);
  }

  update(id: string, params: Body<'budgets-update'>, options?: RequestOptions): Promise<Answer<'budgets-update'>> {
    return this.patch('budgets-update', `/budgets/${seg(id)}`, params, options);
  }

  delete(id: string, options?: RequestOptions): Promise<Answer<'budgets-delete'>> {
    return this.del('budgets-delete', `/budgets/${seg(id)}`, options);
  }
}

/** `/v1/audit-events`: who changed what (scope audit:read). */
export class AuditEvents extends Resource {
  list(params?: QueryOf<'audit-list'>, options?: RequestOptions): PagedList<AuditEvent> {
    return this.paged<AuditEvent>('audit-list', '/audit-events', params, options);
  }
}

/** `/v1/analytics` (scope analytics:read): one page of buckets with the range's totals. */
export class Analytics extends Resource {
  executions(params: QueryOf<'analytics-executions'>, options?: RequestOptions): Promise<Answer<'analytics-executions'>> {
    return this.get('analytics-executions', '/analytics/executions', params, options);
  }

  requests(params: QueryOf<'analytics-requests'>, options?: RequestOptions): Promise<Answer<'analytics-requests'>> {
    return this.get('analytics-requests', '/analytics/requests', params, options);
  }
}

/** `/v1/models`: the providers this server can call, and their models. */
export class Models extends Resource {
  list(options?: RequestOptions): Promise<Answer<'models-list'>> {
    return this.get('models-list', '/models', undefined, options);
  }
}
