import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory, loggerOptions } from './logging.ts';

/** An app with the app's logger options and the lazy request loggers, writing into `lines`. */
async function appLogging(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({
    logger: loggerOptions(level, stream),
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: () => 'req-1',
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/speaks', async (request) => {
    request.log.info({ body: { token: 'secret' } }, 'hello at info');
    request.log.warn('hello at warn');
    request.log.child({ step: 'inner' }).error('from a child');
    return { level: request.log.level };
  });
  app.get('/boom', async () => {
    throw new Error('broken');
  });
  await app.ready();
  return { app, lines };
}

describe('request loggers made at the first line written', () => {
  it('write the same lines as a pino child: the reqId, redaction, only enabled levels', async () => {
    const { app, lines } = await appLogging('warn');
    const res = await app.inject({ method: 'GET', url: '/speaks' });
    expect(res.json()).toEqual({ level: 'warn' });
    const written = lines.map(({ level, reqId, msg, step }) => ({ level, reqId, msg, step }));
    expect(written).toEqual([
      { level: 40, reqId: 'req-1', msg: 'hello at warn', step: undefined },
      { level: 50, reqId: 'req-1', msg: 'from a child', step: 'inner' },
    ]);
    await app.close();
  });

  it('redact secrets at info, and log a failed request with its reqId', async () => {
    const { app, lines } = await appLogging('info');
    await app.inject({ method: 'GET', url: '/speaks' });
    expect(lines.find((l) => l.msg === 'hello at info')).toMatchObject({
      level: 30,
      reqId: 'req-1',
      msg: 'hello at info',
      body: { token: '[redacted]' },
    });
    lines.length = 0;
    expect((await app.inject({ method: 'GET', url: '/boom' })).statusCode).toBe(500);
    expect(lines.filter((l) => l.level === 50)).toEqual([
      expect.objectContaining({ reqId: 'req-1', err: expect.objectContaining({ message: 'broken' }) }),
    ]);
    // Fastify's own request lines go through the same loggers.
    expect(lines.filter((l) => l.msg === 'incoming request')).toEqual([
      expect.objectContaining({ level: 30, reqId: 'req-1', req: expect.objectContaining({ url: '/boom' }) }),
    ]);
    await app.close();
  });

  it('write nothing for a request that logs nothing', async () => {
    const { app, lines } = await appLogging('warn');
    expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect(lines).toEqual([]);
    await app.close();
  });
});
