/**
 * Small file systems mounted for a test, to fill up or make read-only under a running server: a
 * tmpfs (`mount -t tmpfs -o size=...`), else a size-limited ext4 image on a loop device (mkfs.ext4
 * + `mount -o loop`). Needs root (CI runs as root); where mounting is not allowed at all the
 * helpers return the reason instead, and the test skips saying so.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFs {
  /** Where it is mounted. */
  readonly dir: string;
  readonly kind: 'tmpfs' | 'ext4 image';
  /** Writes a junk file in it until the file system is full; returns the file's path. */
  fill(): string;
  /** `mount -o remount,ro` or `rw` (refused with EBUSY while a process holds a file in it open for writing). */
  remount(mode: 'ro' | 'rw'): void;
  /** Unmounts (lazily if still busy) and removes what it made. */
  close(): void;
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function reasonOf(err: unknown): string {
  const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
  return stderr || (err instanceof Error ? err.message : String(err));
}

function unmount(dir: string): void {
  try {
    run('umount', [dir]);
  } catch {
    try {
      run('umount', ['-l', dir]);
    } catch {
      // already gone
    }
  }
}

function smallFs(dir: string, kind: SmallFs['kind'], cleanup: () => void): SmallFs {
  return {
    dir,
    kind,
    fill() {
      const path = join(dir, 'junk');
      const fd = openSync(path, 'w');
      const chunk = Buffer.alloc(64 * 1024, 0x5a);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
      // the last partial blocks: byte by byte until not even one fits
      const tail = openSync(path, 'a');
      try {
        for (;;) writeSync(tail, Buffer.alloc(512, 0x5a));
      } catch {
        // full
      } finally {
        closeSync(tail);
      }
      return path;
    },
    remount(mode) {
      run('mount', ['-o', `remount,${mode}`, dir]);
    },
    close() {
      unmount(dir);
      cleanup();
    },
  };
}

/** A tmpfs of `sizeMiB`, else an ext4 image of that size; or the reasons neither could be mounted. */
export function mountSmallFs(sizeMiB: number): SmallFs | { refused: string } {
  const dir = mkdtempSync(join(tmpdir(), 'small-fs-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir]);
    return smallFs(dir, 'tmpfs', () => rmSync(dir, { recursive: true, force: true }));
  } catch (tmpfsErr) {
    rmSync(dir, { recursive: true, force: true });
    const image = mountExt4Image(sizeMiB);
    if ('refused' in image) return { refused: `tmpfs: ${reasonOf(tmpfsErr)}; ${image.refused}` };
    return image;
  }
}

/**
 * An ext4 file system of `sizeMiB` in an image file on a loop device, mounted with
 * errors=remount-ro (the kernel makes it read-only on an error, as on a failing disk).
 */
export function mountExt4Image(sizeMiB: number): (SmallFs & { triggerError(): boolean }) | { refused: string } {
  const work = mkdtempSync(join(tmpdir(), 'small-fs-image-'));
  const image = join(work, 'fs.img');
  const dir = join(work, 'mnt');
  const cleanup = () => rmSync(work, { recursive: true, force: true });
  try {
    writeFileSync(image, '');
    execFileSync('truncate', ['-s', `${sizeMiB}M`, image]);
    run('mkfs.ext4', ['-q', '-F', image]);
    mkdirSync(dir);
    run('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
  } catch (err) {
    cleanup();
    return { refused: `ext4 image: ${reasonOf(err)}` };
  }
  const fs = smallFs(dir, 'ext4 image', cleanup);
  return {
    ...fs,
    /** Reports an error to ext4 (its /sys trigger_fs_error), which remounts it read-only at once; false where the kernel has no such trigger. */
    triggerError() {
      const device = readFileSync('/proc/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' '))
        .find((fields) => fields[1] === dir)?.[0];
      const trigger = device ? `/sys/fs/ext4/${device.replace('/dev/', '')}/trigger_fs_error` : null;
      if (!trigger || !existsSync(trigger)) return false;
      writeFileSync(trigger, 'test: disk error');
      return true;
    },
  };
}
