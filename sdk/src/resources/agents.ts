import type { RequestOptions } from '../core.js';
import type { PagedList } from '../pagination.js';
import type { ExecutionStream } from '../stream.js';
import type { Agent, AgentVersion, Answer, Body, Execution, QueryOf } from '../types.js';
import { Resource, runOrStream, seg } from './base.js';

type ExecuteParams = Omit<Body<'agents-execute'>, 'wait' | 'stream'>;

/** `/v1/agents` (scopes agents:read, agents:write; execute: agents:execute). */
export class Agents extends Resource {
  create(params: Body<'agents-create'>, options?: RequestOptions): Promise<Answer<'agents-create'>> {
    return this.post('agents-create', '/agents', params, options);
  }

  list(params?: QueryOf<'agents-list'>, options?: RequestOptions): PagedList<Agent> {
    return this.paged<Agent>('agents-list', '/agents', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'agents-get'>> {
    return this.get('agents-get', `/agents/${seg(id)}`, undefined, options);
  }

  update(id: string, params: Body<'agents-update'>, options?: RequestOptions): Promise<Answer<'agents-update'>> {
    return this.patch('agents-update', `/agents/${seg(id)}`, params, options);
  }

  delete(id: string, options?: RequestOptions): Promise<Answer<'agents-delete'>> {
    return this.del('agents-delete', `/agents/${seg(id)}`, options);
  }

  /** The agent's versions, newest first (docs/versions.md): one per change of its behaviour. */
  listVersions(id: string, params?: Omit<QueryOf<'agents-listVersions'>, 'id'>, options?: RequestOptions): PagedList<AgentVersion> {
    return this.paged<AgentVersion>('agents-listVersions', `/agents/${seg(id)}/versions`, params, options);
  }

  retrieveVersion(id: string, version: number | string, options?: RequestOptions): Promise<Answer<'agents-retrieveVersion'>> {
    return this.get('agents-retrieveVersion', `/agents/${seg(id)}/versions/${version}`, undefined, options);
  }

  /**
   * Points a label at a version (`"latest"`: it follows the latest). Moving `production` to an
   * older version is a rollback: executions started from the answer on run it.
   */
  moveLabel(id: string, label: string, params: Body<'agents-moveLabel'>, options?: RequestOptions): Promise<Answer<'agents-moveLabel'>> {
    return this.put('agents-moveLabel', `/agents/${seg(id)}/labels/${seg(label)}`, params, options);
  }

  /** Removes a label (any but `production`). */
  removeLabel(id: string, label: string, options?: RequestOptions): Promise<Answer<'agents-removeLabel'>> {
    return this.del('agents-removeLabel', `/agents/${seg(id)}/labels/${seg(label)}`, options);
  }

  /** A new signing secret for the agent's HTTP tools (shown this once). */
  rotateToolSecret(id: string, options?: RequestOptions): Promise<Answer<'agents-rotateToolSecret'>> {
    return this.post('agents-rotateToolSecret', `/agents/${seg(id)}/rotate-tool-secret`, undefined, options);
  }

  /**
   * Runs the agent on `input`:
   * - by default, resolves at once to the execution, `queued` (follow it with `executions.retrieve`,
   *   `executions.stream` or a webhook);
   * - `wait: true`: resolves to the execution once it is final (or paused for approval);
   * - `stream: true`: an `ExecutionStream` of its events, resumed after a dropped connection
   *   without losing or repeating one.
   * Retried calls carry the same Idempotency-Key: a lost answer never runs the agent twice.
   */
  execute(id: string, params: ExecuteParams & { stream: true; wait?: false }, options?: RequestOptions): ExecutionStream;
  execute(id: string, params: ExecuteParams & { wait?: boolean; stream?: false }, options?: RequestOptions): Promise<Execution>;
  execute(id: string, params: Body<'agents-execute'>, options?: RequestOptions): Promise<Execution> | ExecutionStream;
  execute(id: string, params: Body<'agents-execute'>, options?: RequestOptions): Promise<Execution> | ExecutionStream {
    return runOrStream(this.transport, `/agents/${seg(id)}/execute`, params, options);
  }
}
