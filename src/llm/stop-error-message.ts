import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';

type FinishPart = Extract<LanguageModelV3StreamPart, { type: 'finish' }>;

const ADVICE = 'Rephrase the request or use another model.';

/**
 * The owner-facing message for a reply the provider ended itself with stopReason `error`: a prompt Gemini
 * blocked before answering (`promptFeedback.blockReason`), a content filter (OpenAI `content_filter`,
 * Anthropic `refusal`, Gemini `SAFETY`, `RECITATION`, `PROHIBITED_CONTENT` …) or an error finish (Gemini
 * `MALFORMED_FUNCTION_CALL`). Names the provider's reason and the harm categories Gemini flagged.
 */
export function stopErrorMessage(finish: FinishPart | undefined): string {
  const google = record(finish?.providerMetadata?.google);
  const feedback = record(google?.promptFeedback);
  const raw = finish?.finishReason.raw;
  if (typeof feedback?.blockReason === 'string' && feedback.blockReason && raw === feedback.blockReason) {
    const flagged = flaggedCategories(feedback.safetyRatings);
    return `The provider blocked the request before answering (block reason "${feedback.blockReason}"${flagged}). ${ADVICE}`;
  }
  if (finish?.finishReason.unified === 'content-filter') {
    const flagged = flaggedCategories(google?.safetyRatings);
    return `The provider's content filter stopped the reply (finish reason "${raw ?? 'unknown'}"${flagged}). ${ADVICE}`;
  }
  if (raw === 'MALFORMED_FUNCTION_CALL') {
    return 'The model produced a tool call the provider could not read (finish reason "MALFORMED_FUNCTION_CALL"). Try again, or use another model.';
  }
  return `The provider ended the reply with an error (finish reason "${raw ?? 'unknown'}").`;
}

/** `; flagged: dangerous content, harassment` for Gemini safety ratings marked `blocked`, else ''. */
function flaggedCategories(ratings: unknown): string {
  if (!Array.isArray(ratings)) return '';
  const names = ratings
    .map(record)
    .filter((rating) => rating?.blocked === true && typeof rating.category === 'string')
    .map((rating) =>
      String(rating?.category)
        .replace(/^HARM_CATEGORY_/, '')
        .replace(/_/g, ' ')
        .toLowerCase(),
    );
  return names.length > 0 ? `; flagged: ${names.join(', ')}` : '';
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
