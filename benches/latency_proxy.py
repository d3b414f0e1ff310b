"""A TCP proxy holding every read from a client 20 ms before passing it on, like a
distant region (for the benchmarks against a local S3 server).

Usage: latency_proxy.py UPSTREAM_HOST:PORT   (prints the port it listens on)
"""

import asyncio, sys
host, port = sys.argv[1].rsplit(":", 1)
DELAY = 0.020

async def pump(reader, writer, delay):
    try:
        while data := await reader.read(1 << 16):
            if delay:
                await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()

async def handle(cr, cw):
    ur, uw = await asyncio.open_connection(host, int(port))
    await asyncio.gather(pump(cr, uw, DELAY), pump(ur, cw, 0))

async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main())
