// A private Dovecot IMAP server for the reply-detection tests and bench (Debian's
// dovecot-imapd, installed by .ci/run): its own config, passwd-file and maildir in a temp
// dir, listening on 127.0.0.1 on a free port, no TLS (loopback only), stopped by its PID.
// Plain JS so bench/reply-sync.js can use it too.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.address().port;
  await new Promise((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForGreeting(port, deadlineMs) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port });
      socket.once("data", (chunk) => {
        socket.destroy();
        resolve(chunk.toString().startsWith("* OK"));
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`dovecot did not answer on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Start Dovecot (`noIdle`: a server that does not offer IDLE, so clients poll). Returns `{port, user, pass, url(mailbox), stop(), dir}`. As root (CI) the
 * login and internal processes run as the package's `dovenull`/`dovecot` users and the mail
 * belongs to `dovecot`; as another user, everything runs as that user.
 */
export async function startDovecot(options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "outreach-dovecot-"));
  const port = await freePort();
  const user = options.user ?? "replies@acme-dental.test";
  // URL-special characters on purpose (the URL carries them encoded); no ":" (the passwd-file separator).
  const pass = options.pass ?? "p@ss/w0rd%?";
  const me = userInfo();
  const asRoot = me.uid === 0;
  for (const sub of ["run", "state", "mail", "home"]) mkdirSync(join(dir, sub), { recursive: true });
  // Dovecot refuses uid 0 for a mail user: as root, the mailbox belongs to the package's `dovecot` user.
  const mailUid = asRoot ? Number(execFileSync("id", ["-u", "dovecot"]).toString().trim()) : me.uid;
  const mailGid = asRoot ? Number(execFileSync("id", ["-g", "dovecot"]).toString().trim()) : me.gid;
  writeFileSync(join(dir, "passwd"), `${user}:{PLAIN}${pass}:${mailUid}:${mailGid}::${join(dir, "home")}::userdb_mail=maildir:${join(dir, "mail")}\n`);
  const config = `
base_dir = ${join(dir, "run")}
state_dir = ${join(dir, "state")}
log_path = ${join(dir, "dovecot.log")}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# The wrong-password tests need no brute-force delay.
auth_failure_delay = 0
first_valid_uid = 0
first_valid_gid = 0
default_internal_user = ${asRoot ? "dovecot" : me.username}
default_internal_group = ${asRoot ? "dovecot" : me.username}
default_login_user = ${asRoot ? "dovenull" : me.username}
mail_location = maildir:${join(dir, "mail")}
mailbox_list_index = no
# Test data: no fsync per message (the bench APPENDs thousands).
mail_fsync = never
namespace inbox {
  inbox = yes
  separator = /
  mailbox Sent {
    special_use = \\Sent
    auto = create
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(dir, "passwd")}
}
userdb {
  driver = passwd-file
  args = username_format=%u ${join(dir, "passwd")}
}
protocol imap {
  imap_idle_notify_interval = 1 secs
${options.noIdle ? "  imap_capability = IMAP4rev1 LITERAL+ ENABLE UIDPLUS" : ""}
}
`;
  const conf = join(dir, "dovecot.conf");
  writeFileSync(conf, config);
  // The temp dir must be reachable by the unprivileged login processes.
  execFileSync("chmod", ["-R", "a+rX", dir]);
  if (asRoot) execFileSync("chown", ["-R", `${mailUid}:${mailGid}`, join(dir, "mail"), join(dir, "home")]);
  const child = spawn("dovecot", ["-F", "-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await Promise.race([
      waitForGreeting(port, 15_000),
      exited.then((code) => {
        let log = "";
        try {
          log = readFileSync(join(dir, "dovecot.log"), "utf8");
        } catch {}
        throw new Error(`dovecot exited (${code}): ${stderr}${log}`);
      }),
    ]);
  } catch (err) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let stopped;
  return {
    port,
    user,
    pass,
    dir,
    pid: child.pid,
    /** `imap://user:pass@127.0.0.1:port/MAILBOX`, credentials URL-encoded. */
    url(mailbox = "INBOX") {
      return `imap://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}/${encodeURIComponent(mailbox)}`;
    },
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null) {
          process.kill(child.pid, "SIGTERM");
          const timer = setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/** IMAP quoted string (RFC 3501): backslash and double quote escaped. */
function quoted(text) {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Deliver `messages` (raw RFC 5322 text) into `mailbox` as a mail server's delivery or a
 * client's upload does: IMAP APPEND, so Dovecot itself writes the maildir files and their
 * uidlist/index records. MULTIAPPEND (RFC 3502, `chunk` messages per command, LITERAL+):
 * one index transaction per command, 10,000 messages in seconds (one APPEND per message
 * costs a uidlist and index write each, over a minute on a loaded machine). Plain sockets:
 * imapflow sends one message per APPEND.
 */
export async function multiAppend(server, messages, { mailbox = "INBOX", chunk = 500 } = {}) {
  const socket = createConnection({ host: "127.0.0.1", port: server.port });
  let received = "";
  let failed;
  const waiters = new Set();
  socket.on("data", (data) => {
    received += data.toString("latin1");
    const bad = /^\S+ (?:NO|BAD) .*$/m.exec(received);
    if (bad) failed = new Error(`APPEND into ${mailbox} failed: ${bad[0]}`);
    for (const check of waiters) check();
  });
  socket.on("error", (err) => {
    failed = err;
    for (const check of waiters) check();
  });
  const answer = (pattern) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (failed) reject(failed);
        else if (pattern.test(received)) resolve();
        else return;
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  try {
    await answer(/^\* OK/m);
    socket.write(`L LOGIN ${quoted(server.user)} ${quoted(server.pass)}\r\n`);
    await answer(/^L OK/m);
    let last = "L";
    for (let at = 0; at < messages.length; at += chunk) {
      last = `A${at}`;
      socket.write(`${last} APPEND ${quoted(mailbox)}`);
      for (const text of messages.slice(at, at + chunk)) {
        const bytes = Buffer.from(text.replace(/\r?\n/g, "\r\n"));
        socket.write(` {${bytes.length}+}\r\n`);
        socket.write(bytes);
      }
      socket.write("\r\n");
    }
    await answer(new RegExp(`^${last} OK`, "m"));
    socket.write("Z LOGOUT\r\n");
  } finally {
    socket.end();
  }
}
