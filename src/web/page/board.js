"use strict";
// The board: the server's SVG drawing of a position, made playable. The
// page holds no rules: each legal move comes with the squares a person
// clicks to play it (`clicks`); a drag from one square to another plays as
// those clicks. Squares are found by `data-square`, pocket pieces by
// `data-pocket`, pieces by `data-piece`.

// The squares chosen so far for the move being made, and the pocket piece
// chosen for a drop.
let prefix = [], pocketPick = null;
// Whether the board is turned (the second player at the bottom).
let flipped = false;
// A press on the board that may become a drag: where it began, and the
// ghost piece following the pointer once it moves.
let press = null;
// A piece chosen that has no move (said in the status line).
let noMoveFrom = null;
// The click after a drag's release is not a click of its own.
let swallowClick = false;
// The move just played by a drag: not animated again.
let draggedMove = null;
// A move chosen while the opponent is to move (a premove): the squares
// chosen, the piece's and where it goes. It is played when the turn comes
// if a legal move goes between them, else dropped.
let premove = [];

const boardEl = () => document.getElementById("board");
const cellOf = (sq) => boardEl().querySelector(`g[data-square="${CSS.escape(sq)}"]`);

function clearChoice() { prefix = []; pocketPick = null; closePicker(); }

// Whether moves may be chosen on the board now.
function choosing() { return !!game && !game.result && !thinking && !view; }

// Whether a premove may be chosen now: a seated player's page while the
// opponent is to move.
function premoving() {
  return !!game && !game.result && !view && !!game.seated && !!game.you && game.turn !== game.you;
}

// Whether the piece on `square` is the viewer's own.
function ownPieceOn(square) {
  const cell = cellOf(square);
  const piece = cell && cell.querySelector(".piece");
  return !!piece && piece.classList.contains(`p${game.players.indexOf(game.you)}`);
}

// A square chosen for a premove: the first an own piece's, the second
// anywhere else; a click on the chosen piece again, or on nothing of
// one's own, drops it.
function premoveClicked(square) {
  if (premove.length === 1 && square !== premove[0]) premove.push(square);
  else premove = premove.length !== 1 && ownPieceOn(square) ? [square] : [];
  render();
}

// The turn has come: the premove is played if a legal move goes from its
// first square to its second (a choice left open, a promotion's piece,
// is asked as usual), else dropped.
function tryPremove() {
  if (!premove.length || !choosing() || game.turn !== game.you) return;
  const [from, to] = premove;
  premove = [];
  const fits = game.legal.some((m) => m.clicks[0] === from && (to === undefined || m.clicks[1] === to));
  if (!fits) { render(); return; }
  prefix = [from];
  if (to === undefined) render(); else clicked(to);
}

// The legal moves that fit what has been chosen so far.
function candidates() {
  if (!choosing()) return [];
  return game.legal.filter((m) => m.clicks.length > 0
    && (pocketPick === null || m.drop === pocketPick)
    && m.clicks.length >= prefix.length && prefix.every((s, i) => m.clicks[i] === s));
}

function nextTargets() {
  if (!prefix.length && pocketPick === null) return new Set();
  return new Set(candidates().filter((m) => m.clicks.length > prefix.length).map((m) => m.clicks[prefix.length]));
}

// A square chosen (clicked, tapped, or a drag's start or end).
function clicked(square) {
  if (premoving()) { premoveClicked(square); return; }
  if (!choosing()) return;
  closePicker();
  noMoveFrom = null;
  if (nextTargets().has(square)) { prefix.push(square); advance(); return; }
  pocketPick = null;
  prefix = [square];
  if (!candidates().length) {
    prefix = [];
    // A piece of the player to move with nowhere to go: said, not ignored.
    const cell = cellOf(square);
    if (cell && cell.querySelector(".piece") && game.legal.length) noMoveFrom = square;
  }
  advance();
}

function pocketClicked(piece) {
  if (!choosing()) return;
  const drops = game.legal.some((m) => m.drop === piece);
  pocketPick = pocketPick === piece || !drops ? null : piece;
  prefix = [];
  closePicker();
  render();
}

// After a choice: play the move if only one fits and nothing goes on from
// here, else offer the ones that end here in the picker by the square and
// light the squares that go on.
function advance() {
  if (prefix.length) {
    const fit = candidates();
    const done = fit.filter((m) => m.clicks.length === prefix.length);
    const more = fit.some((m) => m.clicks.length > prefix.length);
    if (done.length === 1 && !more) { play(done[0].name); return; }
    render();
    if (done.length) openPicker(done, prefix[prefix.length - 1]);
    return;
  }
  render();
}

// The moves that end on `square` offered at the square: the piece each
// leaves there where the server says (a promotion), else their names.
function openPicker(moves, square) {
  const picker = $("picker");
  picker.innerHTML = "";
  for (const m of moves) {
    const b = document.createElement("button");
    b.dataset.move = m.name;
    b.title = m.name;
    if (m.leaves) {
      b.innerHTML = m.leaves.svg;
      b.setAttribute("aria-label", `${m.name}: ${m.leaves.piece}`);
    } else {
      b.textContent = m.name;
      b.className = "named";
    }
    b.addEventListener("click", () => { closePicker(); play(m.name); });
    picker.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.textContent = "✕";
  cancel.className = "named";
  cancel.title = "Choose another move";
  cancel.addEventListener("click", () => { clearChoice(); render(); });
  picker.appendChild(cancel);
  picker.dataset.open = "";
  // Beside the square, inside the board's area.
  const cell = cellOf(square), area = $("play").getBoundingClientRect();
  const shape = cell && cell.querySelector(".shape");
  const at = shape ? shape.getBoundingClientRect() : area;
  picker.style.setProperty("--cell", `${Math.max(36, Math.min(64, at.width))}px`);
  const w = picker.offsetWidth, h = picker.offsetHeight;
  let x = at.left - area.left + at.width / 2 - w / 2, y = at.bottom - area.top + 4;
  if (y + h > area.height) y = at.top - area.top - h - 4;
  picker.style.left = `${Math.max(0, Math.min(area.width - w, x))}px`;
  picker.style.top = `${Math.max(0, y)}px`;
  picker.querySelector("button").focus({ preventScroll: true });
}

function closePicker() {
  const picker = $("picker");
  delete picker.dataset.open;
  picker.innerHTML = "";
}

// The centre of a square's shape in the SVG's own units.
function centreOf(cell) {
  const b = cell.querySelector(".shape").getBBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
}

// A marker laid over a square's shape (the last move, the choice, a
// check): a copy of the shape, filled by the page's colours, so it shows
// on every square colour.
function overlay(cell, kind) {
  const shape = cell.querySelector(".shape");
  if (!shape) return;
  const o = shape.cloneNode(false);
  o.removeAttribute("fill-opacity");
  o.removeAttribute("stroke");
  o.setAttribute("class", `overlay ${kind}`);
  o.removeAttribute("fill");
  shape.after(o);
}

// Moves a piece element to `[dx, dy]` from where it is drawn (wrapped in a
// group: the flipped board turns the piece's own text upright by CSS).
function shift(piece, dx, dy, moving) {
  const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
  piece.before(g);
  g.appendChild(piece);
  g.style.transform = `translate(${dx}px, ${dy}px)`;
  if (moving) {
    g.getBoundingClientRect();
    g.classList.add("moving");
    requestAnimationFrame(() => { g.style.transform = ""; });
  }
  return g;
}

// Draws `shown` (a game or a past position) and what is being chosen.
function renderBoard(shown) {
  const board = boardEl();
  board.innerHTML = shown.svg;
  board.classList.toggle("flipped", flipped);
  const svg = board.querySelector("svg");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${shown.game}, ${shown.turn} to move`);
  sizeBoard();
  // The choice of piece set only where this game's pieces have two.
  document.getElementById("piece-set").hidden = !svg.querySelector(".traditional");
  const targets = nextTargets();
  const last = new Set(shown.last_move || []);
  const check = new Set(shown.check || []);
  for (const g of board.querySelectorAll("g[data-square]")) {
    const sq = g.dataset.square;
    const piece = g.querySelector(".piece");
    g.setAttribute("aria-label", piece ? `${sq} ${piece.dataset.piece}` : sq);
    if (last.has(sq)) { g.dataset.last = ""; overlay(g, "last"); }
    if (prefix.includes(sq)) { g.dataset.selected = ""; overlay(g, "selected"); }
    if (check.has(sq)) { g.dataset.check = ""; overlay(g, "check"); }
    if (premove.includes(sq)) { g.dataset.premove = ""; overlay(g, "premove"); }
    if (targets.has(sq)) {
      g.dataset.target = "";
      const hint = g.querySelector(".hint");
      if (piece && hint) {
        // A capture (or any move onto a piece): a ring round the square.
        g.dataset.occupied = "";
        const b = g.querySelector(".shape").getBBox();
        hint.setAttribute("r", (Math.min(b.width, b.height) / 2 - 3).toFixed(1));
        hint.setAttribute("stroke-width", "4");
        g.appendChild(hint);
      }
    }
  }
  for (const g of board.querySelectorAll("g[data-pocket]")) {
    g.setAttribute("aria-label", `in hand: ${g.dataset.pocket}`);
    if (pocketPick === g.dataset.pocket) g.dataset.selected = "";
  }
  // A move of several choices under way: its piece drawn where it went.
  if (prefix.length >= 2) {
    const from = cellOf(prefix[0]), to = cellOf(prefix[prefix.length - 1]);
    const piece = from && from.querySelector(".piece");
    if (piece && to && from !== to) {
      const [fx, fy] = centreOf(from), [tx, ty] = centreOf(to);
      for (const taken of to.querySelectorAll(".piece")) taken.style.opacity = ".25";
      // Drawn above every square.
      const moved = shift(piece, tx - fx, ty - fy, false);
      moved.style.pointerEvents = "none";
      svg.appendChild(moved);
    }
  }
}

// Slides the piece of the move that led to `shown` from where it came.
function animateLast(shown) {
  const [from, to] = shown.last_move || [];
  if (!from || !to || from === to) return;
  const a = cellOf(from), b = cellOf(to);
  const piece = b && b.querySelector(".piece");
  if (!a || !piece) return;
  const [fx, fy] = centreOf(a), [tx, ty] = centreOf(b);
  shift(piece, fx - tx, fy - ty, true);
}

// The board as large as the screen allows: beside the panel on a wide
// screen (at most the height left under the header), the full width on a
// narrow one.
function sizeBoard() {
  const svg = boardEl().querySelector("svg");
  if (!svg) return;
  const box = svg.viewBox.baseVal;
  const aspect = box && box.height ? box.width / box.height : 1;
  const wide = window.innerWidth >= 900;
  const side = wide ? Math.min(26 * 16, Math.max(18 * 16, window.innerWidth * 0.3)) + 56 : 16;
  const strips = 2 * 40 + document.querySelector("header").offsetHeight + 16;
  const maxW = document.documentElement.clientWidth - side;
  const maxH = wide ? window.innerHeight - strips : Infinity;
  const w = Math.max(200, Math.min(maxW, maxH * aspect));
  svg.setAttribute("width", Math.round(w));
  svg.setAttribute("height", Math.round(w / aspect));
  $("play").style.width = `${Math.round(w)}px`;
}
window.addEventListener("resize", sizeBoard);

// The square or pocket piece under a point of the screen.
function hitAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const g = el && el.closest && el.closest("#board g[data-square], #board g[data-pocket]");
  if (!g) return null;
  return g.dataset.square !== undefined ? { square: g.dataset.square } : { pocket: g.dataset.pocket };
}

// Pointer input (mouse, pen, finger): a press on a piece that can move,
// then a move of the pointer, drags a copy of the piece; its release on a
// square plays the move there. A press and release in place is a click
// (handled by the click event).
function onPointerDown(e) {
  if (e.button !== 0) return;
  const early = premoving();
  if (!choosing() && !early) return;
  const hit = hitAt(e.clientX, e.clientY);
  if (!hit) return;
  swallowClick = false;
  if (early) {
    // A premove's piece: dragged as a move is.
    const piece = hit.square !== undefined && ownPieceOn(hit.square) && cellOf(hit.square).querySelector(".piece");
    if (!piece) return;
    press = { hit, x: e.clientX, y: e.clientY, id: e.pointerId, ghost: null, piece, early };
    e.preventDefault();
    return;
  }
  const g = hit.square !== undefined ? cellOf(hit.square)
    : boardEl().querySelector(`g[data-pocket="${CSS.escape(hit.pocket)}"]`);
  const piece = g && g.querySelector(".piece");
  const movable = hit.square !== undefined
    ? game.legal.some((m) => m.clicks[0] === hit.square) || nextTargets().has(hit.square)
    : game.legal.some((m) => m.drop === hit.pocket);
  if (!piece || !movable) return;
  press = { hit, x: e.clientX, y: e.clientY, id: e.pointerId, ghost: null, piece };
  e.preventDefault();
}

function onPointerMove(e) {
  if (!press || e.pointerId !== press.id) return;
  if (!press.ghost) {
    if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < 6) return;
    press.ghost = makeGhost(press.piece);
    if (press.early) {
      premove = [press.hit.square];
      render();
      const cell = cellOf(press.hit.square);
      if (cell) cell.dataset.draggedFrom = "";
    } else if (press.hit.square !== undefined) {
      // The drag's start is chosen as a click would.
      if (prefix[prefix.length - 1] !== press.hit.square && !nextTargets().has(press.hit.square)) {
        pocketPick = null;
        prefix = [press.hit.square];
        render();
      }
      const cell = cellOf(press.hit.square);
      if (cell) cell.dataset.draggedFrom = "";
    } else if (pocketPick !== press.hit.pocket) {
      pocketPick = press.hit.pocket;
      prefix = [];
      render();
    }
  }
  const s = press.ghost.size;
  press.ghost.el.style.left = `${e.clientX - s / 2}px`;
  press.ghost.el.style.top = `${e.clientY - s / 2}px`;
  e.preventDefault();
}

function onPointerUp(e) {
  if (!press || e.pointerId !== press.id) return;
  const p = press;
  press = null;
  if (!p.ghost) return;
  p.ghost.el.remove();
  swallowClick = true;
  setTimeout(() => { swallowClick = false; }, 0);
  const hit = hitAt(e.clientX, e.clientY);
  if (p.early) {
    premove = hit && hit.square !== undefined && hit.square !== p.hit.square ? [p.hit.square, hit.square] : [];
    render();
  } else if (hit && hit.square !== undefined && nextTargets().has(hit.square)) {
    draggedMove = true;
    clicked(hit.square);
    draggedMove = null;
  } else {
    render();
  }
}

function onPointerCancel() {
  if (!press) return;
  if (press.ghost) press.ghost.el.remove();
  press = null;
  render();
}

// A copy of a piece that follows the pointer, at the size it is drawn.
function makeGhost(piece) {
  const cell = piece.closest("g[data-square], g[data-pocket]");
  const frame = (cell.querySelector(".shape") || cell.querySelector("rect") || piece).getBBox();
  const shown = (cell.querySelector(".shape") || piece).getBoundingClientRect();
  const size = Math.max(shown.width, shown.height) * 1.15;
  const el = document.createElement("div");
  el.id = "ghost";
  el.setAttribute("aria-hidden", "true");
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", size);
  svg.setAttribute("height", size);
  svg.setAttribute("viewBox", `${frame.x} ${frame.y} ${frame.width} ${frame.height}`);
  const source = boardEl().querySelector("svg");
  svg.setAttribute("font-family", source.getAttribute("font-family") || "sans-serif");
  const copy = piece.cloneNode(true);
  if (piece.classList.contains("p1")) copy.setAttribute("fill", "#111");
  svg.appendChild(copy);
  el.appendChild(svg);
  document.body.appendChild(el);
  return { el, size };
}

function onBoardClick(e) {
  if (swallowClick) { swallowClick = false; return; }
  const g = e.target.closest && e.target.closest("g[data-square], g[data-pocket]");
  if (!g) return;
  if (g.dataset.square !== undefined) clicked(g.dataset.square); else pocketClicked(g.dataset.pocket);
}

function setupBoard() {
  const board = boardEl();
  board.addEventListener("pointerdown", onPointerDown);
  window.addEventListener("pointermove", onPointerMove, { passive: false });
  window.addEventListener("pointerup", onPointerUp);
  window.addEventListener("pointercancel", onPointerCancel);
  board.addEventListener("click", onBoardClick);
  // A long press on a piece opens no menu; a right click drops a premove.
  board.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    if (premove.length) { premove = []; render(); }
  });
}
