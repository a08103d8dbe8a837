// Report lengths a person can ask for (the session setting report_length), their word targets and
// how each scales a report patch's character budget. Plain values: the workflow reads them.
export const REPORT_LENGTHS = ['brief', 'standard', 'detailed'] as const;
export type ReportLength = (typeof REPORT_LENGTHS)[number];
export const REPORT_WORDS: Record<ReportLength, number> = { brief: 500, standard: 1_200, detailed: 2_500 };
export const REPORT_PATCH_SCALE: Record<ReportLength, number> = { brief: 0.5, standard: 1, detailed: 2 };
/** Below this share of its target, the report says the sources could not fill the length asked. */
export const SHORT_OF_TARGET = 0.75;
