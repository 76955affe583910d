// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import { exportSuite } from './export';

// OTLP export over http/protobuf, the default (docs/traces.md, "Export"), to a real local collector.

exportSuite('http/protobuf', 'application/x-protobuf');
