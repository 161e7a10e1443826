"""The client's address behind reverse proxies: X-Forwarded-For is believed only as far as the proxies named
in TRUSTED_PROXIES wrote it. Any client can send the header, so without a trusted proxy in front it says
nothing, and a throttle keyed on it is no throttle.

Plain Python: the settings module parses TRUSTED_PROXIES with it before Django is configured."""

import ipaddress
from collections.abc import Iterable, Mapping

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """Parse addresses and networks (``10.0.0.5``, ``10.0.0.0/8``, ``::1``); a bad entry is an error."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError as error:
            raise ValueError(f"TRUSTED_PROXIES: {entry!r} is not an address or a network") from error
    return tuple(networks)


def is_trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def client_address(meta: Mapping[str, str], networks: tuple[Network, ...]) -> str:
    """The address of the client that sent a request (a WSGI environ / ``request.META``).

    REMOTE_ADDR, unless it is a trusted proxy: then X-Forwarded-For is read from the right (each proxy appends
    the address it saw), skipping trusted proxies, and the first address that is not one is the client.
    What lies further left was written by the client and is never read."""
    remote = meta.get("REMOTE_ADDR", "") or ""
    if not is_trusted(remote, networks):
        return remote
    hops = [hop.strip() for hop in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if not is_trusted(hop, networks):
            return hop
    return hops[0] if hops else remote
