"""``wawkit serve``: the web companion on 127.0.0.1 (see :mod:`converter.web`).

It prints the URL with its random token, as Jupyter does; whoever opens that URL can
drive the server, nobody else: not another local user, not a web page in the browser.
"""
from __future__ import annotations

import click

from converter.cli import main

EXISTING = click.Path(exists=True, dir_okay=False)


@main.command()
@click.option("--module", "module_path", type=EXISTING, help="Module every session uses unless it uploads one.")
@click.option("--profile", "profile_path", type=EXISTING, help="Module profile every session uses unless it "
              "uploads one.")
@click.option("--units", type=EXISTING, help="Unit table (default: the profile's units_file).")
@click.option("--terrain", type=EXISTING, help="Terrain map (default: the profile's terrain_file).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0: a free one).")
@click.option("--host", type=click.Choice(["127.0.0.1"]), default="127.0.0.1", show_default=True,
              help="Address to listen on: this machine only.")
def serve(module_path: str | None, profile_path: str | None, units: str | None, terrain: str | None, port: int,
          host: str) -> None:
    """Start the web companion: validate, resolve and migrate in a browser, and a JSON API under /api/v1.

    Without --module (in a source checkout) the page offers the sample game of samples/ with
    one click: the TUS §6.1 example fire, ready to check and resolve.
    """
    import socket

    import uvicorn

    from converter.web.app import Settings, guarded_app
    if (units or terrain) and not profile_path:
        raise click.UsageError("--units and --terrain go with --profile")
    if profile_path and not module_path:
        raise click.UsageError("--profile needs --module: the profile names the module's maps and pieces")
    if profile_path:
        from converter.importer import read_inputs
        read_inputs(profile_path, units, terrain)                 # a bad profile is said now, not per request
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    chosen = listener.getsockname()[1]
    settings = Settings(chosen, module=module_path, profile=profile_path, units=units, terrain=terrain)
    click.echo("wawkit serve: open this URL in your browser (it holds the token; keep it to yourself):")
    click.echo(f"    {settings.url()}")
    click.echo(f"    API: {settings.url().split('?')[0]}api/v1/openapi.json  (Authorization: Bearer {settings.token})")
    if module_path is None and settings.samples is not None:
        click.echo("Started without --module: the page offers the sample game (samples/demo.vsav) with one click.",
                   err=True)
    click.echo("Stop with Ctrl-C; every session's files are deleted then.", err=True)
    server = uvicorn.Server(uvicorn.Config(guarded_app(settings), log_level="warning", lifespan="on"))
    server.run(sockets=[listener])


__all__ = ["serve"]
