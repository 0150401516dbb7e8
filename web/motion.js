// A moving piece: straight from its square to the target, or along a capture's route (points
// joined by straight runs and arcs round a corner, the long way), at an even speed.

// The polyline a move's piece follows: `xy(col, row)` gives drawing coordinates, `unit` is the
// distance between two points.
export function routePoints(move, fromSq, toSq, xy, unit) {
  if (!move.path) return [xy(fromSq.col, fromSq.row), xy(toSq.col, toSq.row)];
  const out = [];
  const nodes = move.path;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node.type === "point") {
      out.push(xy(node.col, node.row));
      continue;
    }
    const prev = out[out.length - 1];
    const next = nodes[i + 1];
    if (!prev || !next) continue;
    const [cx, cy] = xy(node.col, node.row);
    const [nx, ny] = xy(next.col, next.row);
    const a0 = Math.atan2(prev[1] - cy, prev[0] - cx);
    const a1 = Math.atan2(ny - cy, nx - cx);
    // The short way is a quarter turn through the board: go the other way, three quarters.
    let delta = a1 - a0;
    while (delta <= -Math.PI) delta += 2 * Math.PI;
    while (delta > Math.PI) delta -= 2 * Math.PI;
    const longWay = delta > 0 ? delta - 2 * Math.PI : delta + 2 * Math.PI;
    const r = node.radius * unit;
    for (let k = 1; k < 24; k++) {
      const a = a0 + (longWay * k) / 24;
      out.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
    }
  }
  return out;
}

// Moves `piece` (an SVG element placed by its transform) along `points` in `time` ms.
export function glide(piece, points, time) {
  return new Promise((resolve) => {
    const lengths = [0];
    for (let i = 1; i < points.length; i++) {
      lengths.push(lengths[i - 1] + Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]));
    }
    const total = lengths[lengths.length - 1] || 1;
    piece.parentNode.appendChild(piece);
    const start = performance.now();
    const step = (now) => {
      const t = Math.min(1, (now - start) / time);
      const d = t * total;
      let i = 1;
      while (i < lengths.length - 1 && lengths[i] < d) i++;
      const seg = lengths[i] - lengths[i - 1] || 1;
      const f = (d - lengths[i - 1]) / seg;
      const x = points[i - 1][0] + (points[i][0] - points[i - 1][0]) * f;
      const y = points[i - 1][1] + (points[i][1] - points[i - 1][1]) * f;
      piece.setAttribute("transform", `translate(${x} ${y})`);
      if (t < 1) requestAnimationFrame(step);
      else resolve();
    };
    requestAnimationFrame(step);
  });
}

// How long a move takes: a route's length adds to the time, up to 1.8 s.
export function moveTime(move, points, duration) {
  if (!move.path) return duration;
  let total = 0;
  for (let i = 1; i < points.length; i++) total += Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]);
  return Math.min(1800, duration + total * 0.6);
}
