import childProcess from "node:child_process";
import dgram from "node:dgram";
import dns from "node:dns";
import fs from "node:fs";
import fsPromises from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import tls from "node:tls";

/** What {@link withoutIo} saw while the function ran. */
export interface GuardedRun<T> {
  /** Set when the function returned. */
  value?: T;
  /** Set when the function threw (an I/O attempt throws too). */
  error?: unknown;
  /** Every I/O function the function called, as `fs.readFileSync`. */
  io: string[];
}

/**
 * Runs a synchronous function with Node's I/O modules (fs, child_process, net, http, https, dns, dgram, tls) and
 * `fetch` replaced by traps that record the call and throw. Named ESM imports see the traps too
 * (`syncBuiltinESMExports`). Everything is restored before it returns; nothing else can run meanwhile, since the
 * function is synchronous.
 */
export function withoutIo<T>(fn: () => T): GuardedRun<T> {
  const io: string[] = [];
  const restores: (() => void)[] = [];
  const trap = (owner: Record<string, unknown>, key: string, label: string) => {
    const original = owner[key];
    const descriptor = Object.getOwnPropertyDescriptor(owner, key);
    if (typeof original !== "function" || descriptor?.writable !== true) return;
    owner[key] = () => {
      io.push(label);
      throw new Error(`${label}() was called; buildBrief must do no I/O`);
    };
    restores.push(() => {
      owner[key] = original;
    });
  };
  for (const [name, module] of Object.entries(MODULES)) {
    for (const key of Object.keys(module)) {
      if (/^[A-Z]/.test(key)) continue; // classes and constants: constructing one is caught by its methods
      trap(module as unknown as Record<string, unknown>, key, `${name}.${key}`);
    }
  }
  trap(globalThis as unknown as Record<string, unknown>, "fetch", "fetch");
  syncBuiltinESMExports();
  try {
    return { value: fn(), io };
  } catch (error) {
    return { error, io };
  } finally {
    for (const restore of restores.reverse()) restore();
    syncBuiltinESMExports();
  }
}

// --- internal ---

const MODULES = {
  fs,
  "fs/promises": fsPromises,
  child_process: childProcess,
  net,
  http,
  https,
  dns,
  dgram,
  tls,
} as const;
