/**
 * The names of files that hold secrets (keys, tokens, passwords, cookies), wherever they are: one list for
 * exec's read and write checks and for write_file/edit_file. Pure, no imports, so the file tools load it
 * without the shell analyser.
 */
export const SECRET_NAMES =
  /^(\.env(\..+)?|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(pem|key|p12|pfx|jks|keystore|kdbx|keyring)|\.netrc|\.pgpass|\.git-credentials|\.npmrc|\.pypirc|credentials(\.json|\.toml)?|kubeconfig|shadow|gshadow|sudoers|master\.key|\.[\w.-]*_history|\.histfile|\.vault-token|\.my\.cnf|\.s3cfg|\.boto|\.databrickscfg|\.authinfo(\.gpg)?|credentials\.tfrc\.json|rclone\.conf|logins\.json|key[34]\.db|Login Data|Cookies|cookies\.sqlite|ssh_host_.+_key)$/;

/** One name per kind of secret file, to test whether a glob could name one (`id_*`, `*.pem`, `.e?v`). */
export const SECRET_SAMPLES = [
  ...['.env', '.env.local', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ed25519_sk', 'server.pem'],
  ...['server.key', 'cert.p12', 'cert.pfx', 'store.jks', 'app.keystore', 'vault.kdbx', '.netrc', '.pgpass'],
  ...['.git-credentials', '.npmrc', '.pypirc', 'credentials', 'credentials.json', 'credentials.toml'],
  ...['kubeconfig', 'shadow', 'gshadow', 'sudoers', 'master.key', '.bash_history', '.zsh_history'],
  ...['.vault-token', '.my.cnf', '.s3cfg', 'credentials.tfrc.json', 'rclone.conf', 'logins.json', 'key4.db'],
  ...['Login Data', 'Cookies', 'login.keyring', 'ssh_host_ed25519_key', 'ssh_host_rsa_key'],
];

const SECRET_NAMES_ANY_CASE = new RegExp(SECRET_NAMES.source, 'i');
/** Templates of a `.env` that programs do not load and that hold no values by convention. */
const ENV_TEMPLATES = /^\.env\.(example|sample|template|dist|defaults)$/i;

/**
 * Whether writing a file of this name may replace a secret or plant one a program loads (`.env`, a key, a
 * `.netrc`): matched in any case (`.ENV` is `.env` on a case-insensitive file system), public halves
 * (`id_rsa.pub`) and `.env` templates (`.env.example`) excepted.
 */
export function secretFileName(name: string): boolean {
  if (/\.pub$/i.test(name) || name.toLowerCase() === 'known_hosts' || ENV_TEMPLATES.test(name)) return false;
  return SECRET_NAMES_ANY_CASE.test(name);
}
