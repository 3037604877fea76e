/** Query parameters whose values never reach a log line (a client may misplace a secret into the URL). */
const SECRET_PARAMETERS = /([?&](?:client_secret|password|code|code_verifier|refresh_token|access_token|token|signature)=)[^&#]*/gi;

export function redactedUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_PARAMETERS, '$1[redacted]') : url;
}
