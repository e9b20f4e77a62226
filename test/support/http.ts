/** POSTs a GraphQL body over real HTTP; `key` goes in `Authorization: Bearer`. */
export async function postGraphQL(
  url: string,
  body: unknown,
  key?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
