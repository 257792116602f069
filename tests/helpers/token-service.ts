import { spawnSync } from "node:child_process";
import { createPrivateKey, randomUUID, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { atEnd, tempDir } from "./cleanup.js";

/**
 * A token service on loopback for a distribution registry configured with
 * `auth: token` (the scheme Docker Hub, ghcr.io and most registries use): it
 * signs ES256 JWTs with a self-signed certificate the registry trusts
 * (`rootcertbundle`), carried in the token's `x5c` header. It gives `user`
 * the access asked for on a GET with the right Basic credential, or on a POST
 * trading `identityToken` as an OAuth2 refresh token (docker's
 * `identitytoken`); anyone else gets a token with no access, as Docker Hub
 * gives anonymous callers for a repository they may not read.
 */
export interface TokenService {
  /** The realm the registry names in its challenge. */
  realm: string;
  service: string;
  issuer: string;
  /** The PEM certificate file the registry verifies tokens with. */
  bundle: string;
  /** Requests the service answered, each as `METHOD granted|anonymous`. */
  requests: string[];
  /** A token for `repository` with `actions`, for the test's own pushes. */
  mint(repository: string, actions: string[]): string;
}

export async function startTokenService(login: {
  user: string;
  password: string;
  identityToken: string;
}): Promise<TokenService> {
  const dir = tempDir("contractpin-token-service-");
  const made = spawnSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"]
      .concat(["-subj", "/CN=contractpin test token service"])
      .concat(["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")]),
    { encoding: "utf8" },
  );
  if (made.status !== 0) throw new Error(`openssl req failed: ${made.stderr}`);
  const key = createPrivateKey(readFileSync(join(dir, "key.pem")));
  const der = readFileSync(join(dir, "cert.pem"), "utf8")
    .replace(/-----[^-]+-----/g, "")
    .replace(/\s+/g, "");
  const service = "contractpin-test-registry";
  const issuer = "contractpin-test-issuer";
  const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

  function mint(repository: string | undefined, actions: string[]): string {
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ typ: "JWT", alg: "ES256", x5c: [der] }));
    const claims = b64url(
      JSON.stringify({
        iss: issuer,
        sub: login.user,
        aud: service,
        exp: now + 300,
        nbf: now - 10,
        iat: now,
        jti: randomUUID(),
        access: repository === undefined ? [] : [{ type: "repository", name: repository, actions }],
      }),
    );
    const signature = sign("sha256", Buffer.from(`${header}.${claims}`), {
      key,
      dsaEncoding: "ieee-p1363",
    });
    return `${header}.${claims}.${b64url(signature)}`;
  }

  const requests: string[] = [];
  const expected = `Basic ${Buffer.from(`${login.user}:${login.password}`).toString("base64")}`;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://token");
      const params = req.method === "POST" ? new URLSearchParams(body) : url.searchParams;
      const granted =
        req.method === "POST"
          ? params.get("grant_type") === "refresh_token" &&
            params.get("refresh_token") === login.identityToken
          : req.headers.authorization === expected;
      if (req.headers.authorization !== undefined && !granted && req.method === "GET") {
        requests.push("GET refused");
        res.writeHead(401).end('{"details":"wrong credential"}');
        return;
      }
      requests.push(`${req.method} ${granted ? "granted" : "anonymous"}`);
      const scope = /^repository:([^:]+):(.+)$/.exec(params.get("scope") ?? "");
      const token = mint(granted ? scope?.[1] : undefined, scope?.[2]?.split(",") ?? []);
      // A GET answers `token`, docker's OAuth2 POST `access_token`, as Docker Hub's does.
      const answer = req.method === "POST" ? { access_token: token } : { token };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  atEnd(() => server.close());
  const { port } = server.address() as { port: number };
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    bundle: join(dir, "cert.pem"),
    requests,
    mint: (repository, actions) => mint(repository, actions),
  };
}
