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
 * name names no platform it knows (add it to PLATFORM below).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const LOCK = path.resolve(import.meta.dirname, '../package-lock.json');

/** Name suffix → npm platform fields, longest suffixes first. */
const PLATFORM = [
  ['linux-arm-gnueabihf', { os: ['linux'], cpu: ['arm'], libc: ['glibc'] }],
  ['linux-arm64-gnu', { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] }],
  ['linux-arm64-musl', { os: ['linux'], cpu: ['arm64'], libc: ['musl'] }],
  ['linux-x64-gnu', { os: ['linux'], cpu: ['x64'], libc: ['glibc'] }],
  ['linux-x64-musl', { os: ['linux'], cpu: ['x64'], libc: ['musl'] }],
  ['linux-ppc64-gnu', { os: ['linux'], cpu: ['ppc64'], libc: ['glibc'] }],
  ['linux-s390x-gnu', { os: ['linux'], cpu: ['s390x'], libc: ['glibc'] }],
  ['win32-arm64-msvc', { os: ['win32'], cpu: ['arm64'] }],
  ['win32-ia32-msvc', { os: ['win32'], cpu: ['ia32'] }],
  ['win32-x64-msvc', { os: ['win32'], cpu: ['x64'] }],
  ['darwin-arm64', { os: ['darwin'], cpu: ['arm64'] }],
  ['darwin-amd64', { os: ['darwin'], cpu: ['x64'] }],
  ['darwin-x64', { os: ['darwin'], cpu: ['x64'] }],
  ['linux-amd64', { os: ['linux'], cpu: ['x64'] }],
  ['linux-arm64', { os: ['linux'], cpu: ['arm64'] }],
  ['win32-amd64', { os: ['win32'], cpu: ['x64'] }],
];

const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;
let added = 0;
let unknown = 0;
for (const [key, entry] of Object.entries(packages)) {
  if (!key.startsWith('node_modules/') || !entry.optionalDependencies) continue;
  // Only a parent that ships per-platform binaries: one of its optional deps is already present.
  for (const [name, range] of Object.entries(entry.optionalDependencies)) {
    if (packages[`node_modules/${name}`] || packages[`${key}/node_modules/${name}`]) continue;
    const platform = PLATFORM.find(([suffix]) => name.endsWith(`-${suffix}`));
    if (!platform) {
      // Not a platform package (an ordinary optional dependency npm chose not to install).
      if (/-(darwin|linux|win32|freebsd|android)-/.test(name)) {
        console.error(`lock-platforms: ${name} names a platform this script does not know; add it to PLATFORM`);
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
      ...platform[1],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: ${added} optional platform package(s) listed`);
process.exit(unknown ? 1 : 0);
