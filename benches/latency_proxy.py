"""A TCP proxy holding every read from a client 20 ms before passing it on, like a
distant region (for the benchmarks against a local S3 server).

Usage: latency_proxy.py UPSTREAM_HOST:PORT [REQUEST_LOG]   (prints the port it listens on)

With REQUEST_LOG, the request line of every HTTP request passed on is appended to it
(the benchmarks that count requests).
"""

import asyncio, re, sys
host, port = sys.argv[1].rsplit(":", 1)
LOG = open(sys.argv[2], "a", buffering=1) if len(sys.argv) > 2 else None
DELAY = 0.020
REQUEST = re.compile(rb"(?:^|\r\n)((?:GET|HEAD|PUT|POST|DELETE) \S+ HTTP/1\.[01])")

async def pump(reader, writer, delay):
    try:
        while data := await reader.read(1 << 16):
            if LOG and delay:
                for m in REQUEST.finditer(data):
                    LOG.write(m.group(1).decode("latin-1") + "\n")
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
