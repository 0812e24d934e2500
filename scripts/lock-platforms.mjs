#!/usr/bin/env node
/**
 * Lists every optional platform package in package-lock.json, so that `npm ci` accepts the lock on
 * any machine. Run it after `npm install` changes the lock: `node scripts/lock-platforms.mjs`.
 *
 * Why: a package such as `@swc/core` or `@foundry-rs/anvil` ships its native binary as one optional
 * dependency per platform (`@swc/core-darwin-arm64`, ...). npm writes a lock entry for each only when
 * the registry it talks to serves that package's metadata; a registry mirror that holds just this
 * machine's platform yields a lock without the others, and `npm ci` then refuses it
 * (`Missing: @swc/core-darwin-arm64@ from lock file`). This script adds each missing one as an
 * optional entry with the version its parent asks for and the `os`/`cpu`/`libc` read off its name.
 * npm skips an entry whose platform does not match the machine, so nothing here is downloaded on
 * this platform; on a matching platform npm fetches that version from the registry as usual.
 *
 * Idempotent: entries already present are left as they are. Exits 1 when a missing package's
 * name names no platform it knows (add it to OS, CPU or LIBC below).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const LOCK = path.resolve(import.meta.dirname, '../package-lock.json');

/** Name part → npm's `os`, `cpu` and `libc` values (npm compares them with process.platform, process.arch, the libc). */
const OS = {
  darwin: 'darwin',
  linux: 'linux',
  win32: 'win32',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd',
  android: 'android',
  openharmony: 'openharmony',
  sunos: 'sunos',
  aix: 'aix',
};
const CPU = {
  x64: 'x64',
  amd64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};
const LIBC = { gnu: 'glibc', gnueabihf: 'glibc', musl: 'musl', musleabihf: 'musl', eabi: null, msvc: null };
const PLATFORM_NAME = new RegExp(
  `-(${Object.keys(OS).join('|')})-(${Object.keys(CPU).join('|')})(?:-(${Object.keys(LIBC).join('|')}))?$`,
);

/** The platform fields a package name ends with (`@swc/core-linux-x64-musl` → linux, x64, musl), or null. */
function platformOf(name) {
  const m = PLATFORM_NAME.exec(name);
  if (!m) return null;
  const libc = m[3] ? LIBC[m[3]] : null;
  return { os: [OS[m[1]]], cpu: [CPU[m[2]]], ...(libc ? { libc: [libc] } : {}) };
}

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;
let added = 0;
let unknown = 0;
for (const [key, entry] of Object.entries(packages)) {
  if (!key.startsWith('node_modules/') || !entry.optionalDependencies) continue;
  // Only a parent that ships per-platform binaries: one of its optional deps is already present.
  for (const [name, range] of Object.entries(entry.optionalDependencies)) {
    if (packages[`node_modules/${name}`] || packages[`${key}/node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform) {
      // Not a platform package (an ordinary optional dependency npm chose not to install).
      if (/-(darwin|linux|win32|freebsd|android|openharmony)-/.test(name)) {
        console.error(`lock-platforms: ${name} names a platform this script does not know; add it to OS, CPU or LIBC`);
        unknown++;
      }
      continue;
    }
    const version = range.replace(/^[\^~=]/, '');
    packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      ...(entry.devOptional ? { devOptional: true } : {}),
      optional: true,
      ...platform,
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: ${added} optional platform package(s) listed`);
process.exit(unknown ? 1 : 0);
