import {
  Model,
  type BaseModelConfig,
  type Message,
  type ModelStreamEvent,
  type StreamOptions,
} from '@strands-agents/sdk';

/** What the model was given for one call: the conversation (as JSON data) and the system prompt. */
export interface ModelInput {
  messages: unknown[];
  systemPrompt: unknown;
}

/** One scripted turn: a text reply, or a tool call. */
export type Turn = { text: string } | { toolUse: { name: string; toolUseId: string; input: unknown } };

/**
 * A Strands `Model` that replies from a script, turn by turn, and records every input it was given; when the script
 * runs out it answers "ok". Nothing is mocked around it: the Agent runs its real loop, hooks, tools and plugins.
 */
export class ScriptedModel extends Model<BaseModelConfig> {
  readonly inputs: ModelInput[] = [];
  private config: BaseModelConfig = { modelId: 'scripted' };

  constructor(private readonly script: Turn[] = []) {
    super();
  }

  updateConfig(config: BaseModelConfig): void {
    this.config = { ...this.config, ...config };
  }

  getConfig(): BaseModelConfig {
    return this.config;
  }

  /** Everything the model was given, as one string (to look for injected memory). */
  seen(call: number): string {
    return JSON.stringify(this.inputs[call]);
  }

  async *stream(messages: Message[], options?: StreamOptions): AsyncIterable<ModelStreamEvent> {
    this.inputs.push({
      messages: JSON.parse(JSON.stringify(messages)),
      systemPrompt: JSON.parse(JSON.stringify(options?.systemPrompt ?? null)),
    });
    const turn = this.script.shift() ?? { text: 'ok' };
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    if ('text' in turn) {
      yield { type: 'modelContentBlockStartEvent' };
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: turn.text } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
      return;
    }
    const { name, toolUseId, input } = turn.toolUse;
    yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name, toolUseId } };
    yield {
      type: 'modelContentBlockDeltaEvent',
      delta: { type: 'toolUseInputDelta', input: JSON.stringify(input) },
    };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
  }
}
