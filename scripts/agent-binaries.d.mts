export const AGENT_MJS: string;
export function binaryName(platform: string): string;
export function integrityOf(bytes: Uint8Array): string;
export function checkIntegrity(what: string, pinned: string, got: unknown): void;
export function sumsText(entries: readonly { name: string; sha256: string }[]): string;
export function stampKey(inputs: {
  bundleSha256: string;
  pins: unknown;
  flags: readonly string[];
  builder: number;
}): string;
export function hostPlatform(platform?: string, arch?: string): string;
