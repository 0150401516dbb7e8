"""What the two environments share: their render modes, as text."""

RENDER_MODES = ["human", "ansi"]


def check_render_mode(render_mode):
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")


def render(game, render_mode):
    """`ansi`: the board as text; `human`: printed; no mode: nothing."""
    if render_mode is None:
        return None
    text = game.render()
    if render_mode == "human":
        print(text)
        return None
    return text
