/**
 * Image references as docker resolves them (the distribution project's
 * reference grammar and its normalisation): `foo` is Docker Hub's
 * `library/foo`, `user/foo` is on Docker Hub, and a first component with a
 * `.` or `:`, or `localhost`, or an upper-case letter, names the registry.
 */

/** Docker Hub as docker names it in references and in its credential store. */
const HUB_DOMAIN = "docker.io";
/** The host docker asks for Docker Hub's distribution API. */
const HUB_API_HOST = "registry-1.docker.io";
/** The key under which `docker login` stores Docker Hub's credential in config.json. */
export const HUB_CONFIG_KEY = "https://index.docker.io/v1/";

// One path component of a repository name (reference/regexp.go: alphanumeric
// runs joined by `.`, `_`, `__` or any run of `-`).
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
// A registry host: DNS labels or an IPv4 address, or an IPv6 one in brackets; an optional port.
const DOMAIN =
  /^(?:(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])(?:\.(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]))*|\[[0-9A-Fa-f:.]+\])(?::\d+)?$/;
/** A tag: what may follow `:` in a reference (and go into a command line). */
export const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Where an image's tags are asked. */
export interface ImageRef {
  /** The registry as docker names it (`docker.io`, `ghcr.io`, `localhost:5000`). */
  domain: string;
  /** The repository on that registry (`library/node`, `org/server`). */
  repository: string;
  /** The API's base URL, scheme and host (`https://registry-1.docker.io`). */
  api: string;
}

/**
 * The registry and repository of an image name (tag and digest already
 * taken off), or a reason it is not an image reference docker would take.
 */
export function parseImageName(name: string): ImageRef | string {
  const slash = name.indexOf("/");
  const first = slash < 0 ? "" : name.slice(0, slash);
  const qualified =
    slash >= 0 && (/[.:]/.test(first) || first === "localhost" || first.toLowerCase() !== first);
  let domain = qualified ? first : HUB_DOMAIN;
  let repository = qualified ? name.slice(slash + 1) : name;
  if (domain === "index.docker.io") domain = HUB_DOMAIN;
  if (!DOMAIN.test(domain)) return `'${domain}' is not a registry host`;
  if (domain === HUB_DOMAIN && !repository.includes("/")) repository = `library/${repository}`;
  if (repository.length > 255 || !repository.split("/").every((c) => COMPONENT.test(c)))
    return `'${repository}' is not a repository name`;
  const host = domain === HUB_DOMAIN ? HUB_API_HOST : domain;
  // docker's default insecure registries are 127.0.0.0/8 (and localhost, which
  // resolves there): only those are asked over plain HTTP.
  const scheme = isLoopback(host) ? "http" : "https";
  return { domain, repository, api: `${scheme}://${host}` };
}

/** Whether a registry host (with its port, if any) is the loopback interface. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/:\d+$/, "");
  return bare === "localhost" || bare === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * Why podman would not take the name as it is, or undefined when it names its
 * registry: podman resolves a short name (`foo`, `user/foo`) through the
 * search lists and aliases of registries.conf, which contractpin does not read.
 */
export function podmanShortName(name: string): string | undefined {
  const slash = name.indexOf("/");
  const first = slash < 0 ? "" : name.slice(0, slash);
  if (slash >= 0 && (/[.:]/.test(first) || first === "localhost")) return undefined;
  return `podman short name ${name} is resolved through registries.conf; name its registry (docker.io/${name.includes("/") ? name : `library/${name}`})`;
}

/** The name of an image spec without its tag and digest (`ghcr.io/o/s:1.0@sha256:…` → `ghcr.io/o/s`). */
export function imageName(spec: string): string {
  return spec.replace(/@.*$/s, "").replace(/:[^/:]*$/, "");
}
