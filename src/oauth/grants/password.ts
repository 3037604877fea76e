/**
 * The resource owner password grant (RFC 6749 §4.3), for the partner applications that own
 * the accounts (spec, Grants): only clients granted `password` explicitly, all confidential.
 *
 * The username and password go through the sign-in guard, like the sign-in page:
 * - wrong credentials, or a locked account → invalid_grant (400), with the guard's message;
 * - too many failures from the remote address → invalid_grant with status 429 and a
 *   retry-after. The code stays within §5.2's list (a client written against RFC 6749
 *   knows it: the grant failed, do not retry blindly), and the status and Retry-After say
 *   "wait" to anything that reads HTTP. (temporarily_unavailable is an authorization-endpoint
 *   code, §4.1.2.1, and would blame the server.)
 */
import type { TokenResponse } from '../oauth.types.js';
import { InvalidGrant } from '../oauth.errors.js';
import type { SignInGuard } from '../sign-in-guard.js';
import type { TokensService } from '../tokens.service.js';
import { issueTokenResponse, type GrantRequest, type TokenGrant, type TokenLifetimes } from './grant.js';

export class PasswordGrant implements TokenGrant {
  readonly type = 'password' as const;
  readonly requiredParameters = ['username', 'password'] as const;

  constructor(
    private readonly options: { guard: SignInGuard; tokens: TokensService; lifetimes: TokenLifetimes; now: () => Date },
  ) {}

  async exchange({ client, form, remoteAddress }: GrantRequest): Promise<TokenResponse> {
    const result = await this.options.guard.signIn(form.username!, form.password!, remoteAddress);
    if (!result.ok) {
      if (result.reason === 'throttled') throw new InvalidGrant(result.message, 429, result.retryAfterSeconds);
      throw new InvalidGrant(result.message);
    }
    return issueTokenResponse(this.options.tokens, {
      client,
      userId: result.userId,
      grantType: this.type,
      lifetimes: this.options.lifetimes,
      now: this.options.now(),
    });
  }
}
