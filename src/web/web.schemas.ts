import { Type } from '@sinclair/typebox';
import { Text } from '../platform/http/parameters.js';

/*
 * The paths and fixed query fields of the catalogue browser's pages. They refuse no more than
 * the pages did by hand: an id the catalogue or the boards do not have is their 404, so ids are
 * any text here. A refusal is a page like any other (the web error handler), never JSON.
 * The search page's own query is read by parseBrowseQuery (web-search.ts): its lists, repeated
 * or comma-separated, and its tab-dependent values are the search's to judge.
 */

/** The longest text the search field's suggestions are asked for (the search takes as long a phrase). */
export const MAX_SUGGESTION_INPUT = 500;

export const SuggestionsQuery = Type.Object({
  // Not trimmed: the suggestions complete what was typed, a trailing space included.
  phrase: Type.String({ maxLength: MAX_SUGGESTION_INPUT, description: 'What was typed in the search field so far' }),
});

export const AssetParams = Type.Object({ id: Type.String({ minLength: 1, description: 'An image or video id' }) });
export const AssetPageQuery = Type.Object({
  added: Type.Optional(Text('The board the asset was just added to: the page says so')),
});

export const SignInQuery = Type.Object({
  return: Type.Optional(Text('The path of this site to come back to once signed in')),
});
/** What the authorization endpoint sends back (RFC 6749 §4.1.2): a code and the state, or an error. */
export const SignInCallbackQuery = Type.Object({
  code: Type.Optional(Text('The authorization code')),
  state: Type.Optional(Text('The state the sign-in was started with')),
  error: Type.Optional(Text('Why the sign-in did not complete (access_denied: the person cancelled)')),
});

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, description: 'A board’s share or invitation token' }) });
export const BoardParams = Type.Object({ id: Type.String({ minLength: 1, description: 'A board id' }) });
export const BoardPageQuery = Type.Object({
  moved: Type.Optional(Text('The asset just moved: its button takes the focus')),
  dir: Type.Optional(Text('Which way it moved, up or down (anything else names no button)')),
});
export const BoardLinkParams = Type.Object({
  id: BoardParams.properties.id,
  // Any text: a kind of link the boards do not have is a 404, as an unknown path is.
  kind: Type.String({ description: 'share or invitation' }),
});
