import type { RequestOptions } from '../core.js';
import type { PagedList } from '../pagination.js';
import type { Answer, Body, Dataset, DatasetItem, Experiment, QueryOf } from '../types.js';
import { Resource, seg } from './base.js';

// Evals (docs/evals.md): datasets of items, experiments that run them through a version of an
// agent and score the answers, and rules that score a sample of an agent's runs.

/** `/v1/datasets` (scope evals:manage; reads also agents:read). */
export class Datasets extends Resource {
  create(params: Body<'datasets-create'>, options?: RequestOptions): Promise<Answer<'datasets-create'>> {
    return this.post('datasets-create', '/datasets', params, options);
  }

  list(params?: QueryOf<'datasets-list'>, options?: RequestOptions): PagedList<Dataset> {
    return this.paged<Dataset>('datasets-list', '/datasets', params, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<Answer<'datasets-get'>> {
    return this.get('datasets-get', `/datasets/${seg(id)}`, undefined, options);
  }

  update(id: string, params: Body<'datasets-update'>, options?: RequestOptions): Promise<Answer<'datasets-update'>> {
    return this.patch('datasets-update', `/datasets/${seg(id)}`, params, options);
  }

  /** Deletes the dataset and its items (experiments keep theirs). */
  delete(id: string, options?: RequestOptions): Promise<Answer<'datasets-delete'>> {
    return this.del('datasets-delete', `/datasets/${seg(id)}`, options);
  }

  /** Adds an item: `{input, expected?}` by hand, or `{fromExecution}` (its input, its output as `expected`). */
  createItem(id: string, params: Body<'datasets-createItem'>, options?: RequestOptions): Promise<Answer<'datasets-createItem'>> {
    return this.post('datasets-createItem', `/datasets/${seg(id)}/items`, params, options);
  }

  listItems(id: string, params?: Omit<QueryOf<'datasets-items'>, 'id'>, options?: RequestOptions): PagedList<DatasetItem> {
    return this.paged<DatasetItem>('datasets-items', `/datasets/${seg(id)}/items`, params, options);
  }

  retrieveItem(id: string, itemId: string, options?: RequestOptions): Promise<Answer<'datasets-item'>> {
    return this.get('datasets-item', `/datasets/${seg(id)}/items/${seg(itemId)}`, undefined, options);
  }

  updateItem(id: string, itemId: string, params: Body<'datasets-updateItem'>, options?: RequestOptions): Promise<Answer<'datasets-updateItem'>> {
    return this.patch('datasets-updateItem', `/datasets/${seg(id)}/items/${seg(itemId)}`, params, options);
  }

  deleteItem(id: string, itemId: string, options?: RequestOptions): Promise<Answer<'datasets-deleteItem'>> {
    return this.del('datasets-deleteItem', `/datasets/${seg(id)}/items/${seg(itemId)}`, options);
  }
}

/** `/v1/experiments` (scope evals:manage; reads also agents:read). */
export class Experiments extends Resource {
  /** Starts one: every item × trial of the dataset run through one version of the agent, and scored. Resolves to it, queued. */
  create(params: Body<'experiments-create'>, options?: RequestOptions): Promise<Answer<'experiments-create'>> {
    return this.post('experiments-create', '/experiments', params, options);
  }

  list(params?: QueryOf<'experiments-list'>, options?: RequestOptions): PagedList<Experiment> {
    return this.paged<Experiment>('experiments-list', '/experiments', params, options);
  }

  /** Its progress, and once ended its summary (and comparison with its baseline). */
  retrieve(id: string, options?: RequestOptions): Promise<Answer<'experiments-get'>> {
    return this.get('experiments-get', `/experiments/${seg(id)}`, undefined, options);
  }

  cancel(id: string, options?: RequestOptions): Promise<Answer<'experiments-cancel'>> {
    return this.post('experiments-cancel', `/experiments/${seg(id)}/cancel`, undefined, options);
  }

  /** One page of its results, by item in the dataset's order (pass `nextCursor` as `after` for the next). */
  results(id: string, params?: Omit<QueryOf<'experiments-results'>, 'id'>, options?: RequestOptions): Promise<Answer<'experiments-results'>> {
    return this.get('experiments-results', `/experiments/${seg(id)}/results`, params, options);
  }
}

/** `/v1/agents/{id}/eval-rules`: online scoring of a sample of an agent's runs (scope evals:manage; reads also agents:read). */
export class EvalRules extends Resource {
  create(agentId: string, params: Body<'evalRules-create'>, options?: RequestOptions): Promise<Answer<'evalRules-create'>> {
    return this.post('evalRules-create', `/agents/${seg(agentId)}/eval-rules`, params, options);
  }

  list(agentId: string, options?: RequestOptions): Promise<Answer<'evalRules-list'>> {
    return this.get('evalRules-list', `/agents/${seg(agentId)}/eval-rules`, undefined, options);
  }

  update(agentId: string, ruleId: string, params: Body<'evalRules-update'>, options?: RequestOptions): Promise<Answer<'evalRules-update'>> {
    return this.patch('evalRules-update', `/agents/${seg(agentId)}/eval-rules/${seg(ruleId)}`, params, options);
  }

  delete(agentId: string, ruleId: string, options?: RequestOptions): Promise<Answer<'evalRules-delete'>> {
    return this.del('evalRules-delete', `/agents/${seg(agentId)}/eval-rules/${seg(ruleId)}`, options);
  }
}
