// The image decoder process (engine/sharp.ts starts it, plain JavaScript so it starts without a
// TypeScript loader): it decodes uploaded images one at a time at a lower CPU priority than the API
// process, so a busy machine gives the sends their share first and decoding only what is left.
// Each request decodes its image once, rotated and scaled down to what its largest rendition needs,
// within a time budget, then renders every rendition from that.
import { writeFileSync } from 'node:fs';
import os from 'node:os';

// The arguments (engine/sharp.ts): niceness, whether it runs in a session of its own, the pixel
// limit and the time budget in seconds.
const [nice, ownSession, pixelsMax, secondsMax] = process.argv.slice(2);
try {
  // Without a pid: this thread, the decoder's main thread; the threads it starts later inherit it.
  os.setPriority(Number(nice));
} catch {
  // A platform that refuses priorities decodes at the normal one.
}
if (ownSession === 'true') {
  // Started in a session of its own, the decoder is its own Linux autogroup: niced as a group, it
  // weighs against every other session's processes (Postgres too), not only against its parent.
  try {
    writeFileSync('/proc/self/autogroup', nice);
  } catch {
    // No autogroups here (or not allowed): the process's own priority stands.
  }
}
const { default: sharp } = await import('sharp');
sharp.concurrency(1);
const inputOptions = { limitInputPixels: Number(pixelsMax), animated: false, failOn: 'warning' };

/** The image decoded once: rotated upright, scaled to the least size every job can be cut from. */
async function decodeOnce(bytes, jobs) {
  const metadata = await sharp(bytes, inputOptions).metadata();
  const upright = (metadata.orientation ?? 1) >= 5;
  const width = (upright ? metadata.height : metadata.width) ?? 1;
  const height = (upright ? metadata.width : metadata.height) ?? 1;
  const scales = jobs.map((job) => (job.fit === 'cover' ? Math.max(job.width / width, job.height / height) : Math.min(job.width / width, job.height / height)));
  const scale = Math.min(1, Math.max(...scales));
  return sharp(bytes, inputOptions)
    .timeout({ seconds: Number(secondsMax) })
    .rotate()
    .resize(Math.max(1, Math.ceil(width * scale)), Math.max(1, Math.ceil(height * scale)), { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
}

function renderJob(decoded, job) {
  const { width, height, channels } = decoded.info;
  const pipeline = sharp(decoded.data, { raw: { width, height, channels } })
    .resize(job.width, job.height, job.fit === 'cover' ? { fit: 'cover', position: 'attention' } : { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } });
  return (job.format === 'jpeg' ? pipeline.jpeg({ quality: job.quality }) : pipeline.png()).toBuffer();
}

async function answer(request) {
  try {
    const decoded = await decodeOnce(Buffer.from(request.bytes), request.jobs);
    const outputs = [];
    for (const job of request.jobs) outputs.push(await renderJob(decoded, job));
    process.send({ id: request.id, ok: true, outputs });
  } catch (error) {
    process.send({ id: request.id, ok: false, problem: /timeout/i.test(String(error?.message)) ? 'slow' : 'corrupt' });
  }
}

let turn = Promise.resolve();
process.on('message', (request) => {
  turn = turn.then(() => answer(request));
});
process.on('disconnect', () => process.exit(0));
