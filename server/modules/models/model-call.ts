import { experimental_streamLanguageModelCall as streamModelCall, type LanguageModel } from 'ai';
import { asLanguageModelUsage, convertToLanguageModelPrompt, parseToolCall, prepareToolChoice, prepareTools, standardizePrompt } from 'ai/internal';
import { getErrorMessage, type LanguageModelV4, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { DIRECT_PARTS, type DirectParts } from './compatible';

// One call of a model, streamed, as the run's loop reads it (executions/model-loop.ts): the AI
// SDK's `experimental_streamLanguageModelCall`, or, for a model whose parts come without a web
// stream (the OpenAI-compatible client, compatible.ts), the same steps done here with the SDK's own
// functions — the prompt standardised and converted, the tools prepared, each tool call parsed
// (an invalid one followed by its tool-error), the finish read as `model-call-end` with the SDK's
// usage — and the parts read from a PartQueue (part-queue.ts) rather than through the SDK's two
// TransformStreams: at a hosted model's pace their pipes cost ~10 % of a busy server's CPU
// (docs/benchmark.md, "Issue 49, twenty-first session"). model-call.test.ts compares both paths'
// parts on the same answers.

type Args = Parameters<typeof streamModelCall>[0];
export type ModelCallPart = Awaited<ReturnType<typeof streamModelCall>>['stream'] extends AsyncIterable<infer P> ? P : never;

/** Only what the run's loop passes (model-loop.ts). */
export type ModelCallArgs = Pick<Args, 'model' | 'instructions' | 'messages' | 'tools' | 'temperature' | 'maxOutputTokens' | 'output' | 'abortSignal'>;

const directOf = (model: LanguageModel): DirectParts | undefined =>
  typeof model === 'object' && model !== null ? (model as { [DIRECT_PARTS]?: DirectParts })[DIRECT_PARTS] : undefined;

export async function modelCall(args: ModelCallArgs): Promise<{ stream: AsyncIterable<ModelCallPart> }> {
  const direct = directOf(args.model);
  if (!direct) return streamModelCall({ ...args, _internal: { collectContent: false } } as Args);
  const model = args.model as LanguageModelV4;
  const standardized = await standardizePrompt({ instructions: args.instructions, messages: args.messages } as Parameters<typeof standardizePrompt>[0]);
  const prompt = await convertToLanguageModelPrompt({
    prompt: { instructions: standardized.instructions, messages: standardized.messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal: args.abortSignal,
    provider: model.provider.split('.')[0],
  });
  const parts = await direct({
    ...(args.temperature !== undefined ? { temperature: args.temperature } : {}),
    ...(args.maxOutputTokens !== undefined ? { maxOutputTokens: args.maxOutputTokens } : {}),
    tools: await prepareTools({ tools: args.tools }),
    toolChoice: prepareToolChoice({ toolChoice: undefined }),
    responseFormat: await args.output?.responseFormat,
    prompt,
    abortSignal: args.abortSignal,
  });
  return { stream: mapParts(parts, args, standardized) };
}

/** The provider's parts as the SDK's call hands them on (the parts the loop reads; the others dropped). */
async function* mapParts(parts: AsyncIterable<LanguageModelV4StreamPart>, args: ModelCallArgs, prompt: Awaited<ReturnType<typeof standardizePrompt>>): AsyncGenerator<ModelCallPart> {
  for await (const chunk of parts) {
    switch (chunk.type) {
      case 'text-delta':
        yield { type: 'text-delta', id: chunk.id, text: chunk.delta, providerMetadata: chunk.providerMetadata } as ModelCallPart;
        break;
      case 'tool-call': {
        let call: Awaited<ReturnType<typeof parseToolCall>>;
        try {
          call = await parseToolCall({ toolCall: chunk, tools: args.tools, repairToolCall: undefined, instructions: prompt.instructions, messages: prompt.messages, abortSignal: args.abortSignal });
        } catch (error) {
          yield { type: 'error', error } as ModelCallPart;
          break;
        }
        yield call as ModelCallPart;
        if (call.invalid && !call.providerExecuted) {
          yield { type: 'tool-error', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, error: getErrorMessage(call.error), dynamic: true, title: call.title } as ModelCallPart;
        }
        break;
      }
      case 'finish':
        yield { type: 'model-call-end', finishReason: chunk.finishReason.unified, rawFinishReason: chunk.finishReason.raw, usage: asLanguageModelUsage(chunk.usage), providerMetadata: chunk.providerMetadata } as ModelCallPart;
        break;
      case 'error':
        yield { type: 'error', error: await normalized(chunk.error) } as ModelCallPart;
        break;
    }
  }
}

/**
 * An error part's error as the SDK's call gives it (a provider's error object made a
 * StreamProviderError with its status and retryability): its own normalisation, reached by
 * passing the one part through it. Only an answer that fails comes here.
 */
async function normalized(error: unknown): Promise<unknown> {
  const once: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'normalize',
    modelId: 'normalize',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'error', error });
          controller.close();
        },
      }),
    }),
  };
  const { stream } = await streamModelCall({ model: once, messages: [{ role: 'user', content: '' }] });
  for await (const part of stream) if (part.type === 'error') return part.error;
  return error;
}
