CREATE TABLE "execution_spans" (
	"execution_id" text NOT NULL,
	"span_id" text NOT NULL,
	"parent_id" text,
	"name" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"ended_at" timestamp (3) with time zone NOT NULL,
	"status" text NOT NULL,
	"error" jsonb,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cost_usd" numeric,
	CONSTRAINT "execution_spans_execution_id_span_id_pk" PRIMARY KEY("execution_id","span_id")
);
--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "execution_spans" ADD CONSTRAINT "execution_spans_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;