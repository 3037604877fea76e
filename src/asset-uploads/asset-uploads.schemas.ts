import { Type } from '@sinclair/typebox';

/** The most uploads one results request asks about (the page asks about the files of one visit). */
export const MAX_RESULT_IDS = 100;

export const UploadParams = Type.Object({ id: Type.String({ description: 'An upload’s id (32 hex digits)' }) });

export const ResultsQuery = Type.Object({
  ids: Type.String({ maxLength: MAX_RESULT_IDS * 33, description: 'Upload ids, comma-separated' }),
});
