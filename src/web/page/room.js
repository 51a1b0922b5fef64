"use strict";
// The game room: the game shown, its players' strips and clocks, the move
// list, the controls, the event stream that brings the other pages'
// moves, sounds and keys. The board itself is board.js.

let game = null, thinking = null;
// This page's seat in a game with seats (the token of its link), and the
// game's event stream.
let token = null, source = null;
// When the shown clocks were read (performance.now()).
let clockRead = 0;
// A past position being looked at (`GET /api/games/{id}?ply=N`), or null.
let view = null;
// The position (game or view) the shown explanation was asked in.
let explainedAt = null;
// A game whose rules a new game is played under (`?like=ID`: a shared
// variant's link).
let likeOf = null;
// The name of the server's own game (a game of another name is a
// playground variant's).
let serverGame = null;
// Who plays each player: "human", "ai" or "random".
const seats = {};
const $ = (id) => document.getElementById(id);
const store = {
  get(key) { try { return localStorage.getItem(key); } catch (e) { return null; } },
  set(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } },
};

async function api(path, body) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const opts = body === undefined ? { headers } :
    { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  const data = await r.json();
  if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status });
  return data;
}

function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }

// The game as the server has it now (after a request refused because the
// game had moved on: 409).
async function refresh() {
  try { taken(await api(`/api/games/${game.id}`)); } catch (e) { showError(e); }
}

// ---- Sounds: short tones made in the page (no files), with a switch.
let soundOn = store.get("chessalg.sound") !== "off", audio = null;
function tone(freq, ms, delay = 0, type = "sine", gain = 0.08) {
  if (!soundOn) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const t = audio.currentTime + delay / 1000;
    const o = audio.createOscillator(), g = audio.createGain();
    o.type = type;
    o.frequency.value = freq;
    g.gain.setValueAtTime(gain, t);
    g.gain.exponentialRampToValueAtTime(0.0001, t + ms / 1000);
    o.connect(g).connect(audio.destination);
    o.start(t);
    o.stop(t + ms / 1000);
  } catch (e) { /* no audio here */ }
}
const sounds = {
  move: () => tone(520, 70, 0, "triangle"),
  capture: () => { tone(300, 90, 0, "square", 0.05); tone(200, 110, 40, "triangle"); },
  check: () => { tone(880, 80); tone(990, 90, 90); },
  end: () => { tone(660, 120); tone(550, 120, 130); tone(440, 220, 260); },
  low: () => tone(1200, 60, 0, "square", 0.04),
};
function showSound() {
  $("sound").textContent = soundOn ? "♪ on" : "♪ off";
  $("sound").setAttribute("aria-pressed", String(soundOn));
}

// What a new position says by sound: the end, a check, a capture or a move.
function soundOf(before, after) {
  if (!before || after.plies !== before.plies + 1) return;
  if (after.result) return sounds.end();
  if ((after.check || []).length) return sounds.check();
  const to = (after.last_move || [])[1] || (after.last_move || [])[0];
  const had = to && (before.board || []).find((c) => c.square === to);
  if (had && had.piece) sounds.capture(); else sounds.move();
}

// ---- The game shown.

// Takes `g` as the game shown, with the page's address saying which (a
// reload or a link comes back to it). A description older than the one
// shown (an event sent before this page's last reply, arriving after it)
// is not taken: false.
function setGame(g) {
  if (game && g.id === game.id && g.version < game.version) return false;
  // A seat follows its game's rematch (its link plays the next game).
  if (g.rematch && g.you && token) goRematch(g.rematch);
  const fresh = !game || game.id !== g.id;
  game = g;
  clockRead = performance.now();
  if (fresh) {
    lowSaid = false;
    const kept = store.get(`chessalg.flip.${g.id}`);
    // The second player's seat sees the board from its side.
    flipped = kept !== null ? kept === "1" : !!g.you && g.players.indexOf(g.you) === 1;
  }
  // (A game not stored yet has no address of its own.)
  const url = g.id === null ? location.pathname : `?game=${g.id}` + (token ? `&seat=${token}` : "");
  if (location.search !== url && !(g.id === null && !location.search)) history.replaceState(null, "", url);
  document.body.classList.toggle("seated", !!g.seated);
  return true;
}

// The game as last drawn live on the board (not a past position).
let drawn = null;

// A new description of the game: taken, drawn, and, when it is the next
// move of the game drawn, sounded and the moved piece slid in (unless the
// page's own drag put it there). One already drawn is not drawn again.
function taken(g, slide = true) {
  const before = drawn;
  if (!setGame(g)) return false;
  if (thinking) return true;
  const same = before && before.id === g.id;
  if (same && before.version === g.version) return true;
  if (same && g.plies !== before.plies) clearChoice();
  render();
  if (same && g.plies === before.plies + 1) {
    soundOf(before, g);
    if (slide && !view) animateLast(g);
  }
  if (!same || g.result) premove = [];
  tryPremove();
  return true;
}

async function newGame(body) {
  if (game && game.seated && game.you && !game.result &&
      !confirm("Leave your seat in this game (its link still opens it) and start a game on this page?")) return;
  try {
    token = null;
    view = null;
    // Played under the rules of the game shown (a playground variant's).
    const like = game && game.id !== null && game.game !== serverGame ? { like: String(game.id) }
      : likeOf ? { like: likeOf } : null;
    if (source) { source.close(); source = null; }
    // The server's own game at its start is only stored at its first move.
    if (!like && !body) setGame(await api("/api/start"));
    else setGame(await api("/api/games", { ...(like || {}), ...(body || {}) }));
    showError(null);
    clearChoice();
    if (game.id !== null) follow();
    render();
    maybeAi();
  } catch (e) { showError(e); }
}

// Stores the game shown if it is not yet (its moves so far with it), and
// follows it.
async function stored(moves) {
  if (game.id !== null) return game;
  const g = await api("/api/games", { moves: moves || [] });
  setGame(g);
  follow();
  return g;
}

// Follows the game's event stream: another seat's move (or another tab's)
// shows up without reloading.
function follow() {
  if (source) source.close();
  source = new EventSource(`/api/games/${game.id}/events` + (token ? `?seat=${token}` : ""));
  source.addEventListener("game", (e) => {
    const g = JSON.parse(e.data);
    if (!game || g.id !== game.id) return;
    const moved = g.plies !== game.plies || JSON.stringify(g.result) !== JSON.stringify(game.result);
    // The same position and moves as shown (the stream's first event, or
    // the echo of this page's own move): only the clocks are new.
    const same = !moved && g.fen === game.fen && JSON.stringify(g.legal) === JSON.stringify(game.legal);
    if (same) {
      // Only the room may be new (an offer, a watcher, a seat taken).
      const before = roomKey(game);
      setGame(g);
      if (roomKey(g) !== before && !thinking) renderRoom();
      return;
    }
    if (taken(g) && moved) maybeAi();
  });
}

// What the room shows of a game besides its position.
function roomKey(g) {
  return JSON.stringify([g.draw_offer, g.takeback_ask, g.rematch_ask, g.rematch, g.watchers, g.online, g.open_seats]);
}

// A game with seats: one link per player, and one to watch.
async function playFriend() {
  const clock = $("clock").value.trim();
  try {
    const made = await api("/api/games", clock ? { seats: true, clock } : { seats: true });
    const links = $("links");
    links.innerHTML = "Send each player their link (whoever opens it plays that side):";
    const add = (label, link) => {
      // (Links are relative to the page unless the server has a public URL.)
      const url = new URL(link, location.href).href;
      const row = document.createElement("div");
      const a = document.createElement("a");
      a.href = url;
      a.textContent = label;
      a.dataset.link = label;
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = url;
      input.addEventListener("focus", () => input.select());
      row.append(a, input);
      links.appendChild(row);
    };
    for (const [player, seat] of Object.entries(made.seats)) add(player, seat.url);
    add("watch", made.watch_url);
    showError(null);
    loadLobby();
  } catch (e) { showError(e); }
}

// The newest games of this server, to watch or come back to; refreshed
// while the page is open.
async function loadLobby() {
  try {
    const list = await api("/api/games");
    const lobby = $("lobby");
    lobby.innerHTML = "";
    for (const g of list.games.slice(0, 12)) {
      const row = document.createElement("div");
      row.className = "row";
      const a = document.createElement("a");
      a.href = g.watch_url;
      a.textContent = `${g.variant || g.game || "game"} #${g.id}`;
      const state = g.result
        ? resultWords(g.result, g.players || [], g.player_names)
        : g.over ? "over" : `${(g.player_names && g.player_names[g.turn]) || g.turn} to move`;
      row.append(a, ` · ${g.plies} move${g.plies === 1 ? "" : "s"} · ${state}${g.seated ? " · seats" : ""}${g.clock ? " · clock" : ""}`);
      if (game && g.id === game.id) row.append(" (this game)");
      lobby.appendChild(row);
    }
    if (!list.games.length) lobby.textContent = "No games yet.";
  } catch (e) { /* the list is a convenience */ }
}
setInterval(() => { if (!document.hidden) loadLobby(); }, 15000);

// ---- Players' strips and clocks.

function fmtClock(ms) {
  const s = Math.max(0, ms) / 1000;
  const m = Math.floor(s / 60);
  return s < 10 ? `${m}:${(s % 60).toFixed(1).padStart(4, "0")}` : `${m}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
}

const SWATCHES = ["#f4f4f4", "#222", "#c33", "#36c", "#3a3", "#c90"];
let lowSaid = false;

// The players at the top and bottom of the board: the one whose side is
// at the bottom (the page's seat, or as turned), the others at the top.
function renderStrips() {
  const shown = view || game;
  const players = game.players;
  const bottom = players[flipped && players.length > 1 ? 1 : 0];
  for (const [id, list] of [["bottom", [bottom]], ["top", players.filter((p) => p !== bottom)]]) {
    const strip = $(id);
    strip.innerHTML = "";
    strip.toggleAttribute("data-turn", !shown.result && list.includes(shown.turn));
    const who = document.createElement("span");
    who.className = "who";
    for (const p of list) {
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = (game.player_colours && game.player_colours[p]) ||
        SWATCHES[players.indexOf(p) % SWATCHES.length];
      const name = (game.player_names && game.player_names[p]) || p;
      who.append(sw, name);
      const tag = game.you === p ? "you" : !game.seated && seats[p] && seats[p] !== "human" ? seats[p] === "ai" ? "AI" : "random" : "";
      if (tag) {
        const t = document.createElement("span");
        t.className = "tag";
        t.textContent = tag;
        who.append(t);
      }
      who.append(" ");
    }
    strip.appendChild(who);
    if (game.clock) {
      for (const p of list) {
        const c = document.createElement("span");
        c.className = "clock";
        c.dataset.clock = p;
        strip.appendChild(c);
      }
    }
  }
  renderClocks();
}

function renderClocks() {
  if (!game || !game.clock) return;
  const spent = performance.now() - clockRead;
  for (const span of document.querySelectorAll(".strip .clock[data-clock]")) {
    const p = span.dataset.clock;
    const running = game.clock.running === p;
    const left = game.clock.left_ms[p] - (running ? spent : 0);
    span.textContent = fmtClock(left);
    span.toggleAttribute("data-running", running);
    span.toggleAttribute("data-low", left < 10000);
    if (running && left < 10000 && game.you === p && !lowSaid) { lowSaid = true; sounds.low(); }
  }
}
setInterval(renderClocks, 100);

// ---- The panel.

// A result in words: the score (1-0, 0-1, ½-½ for two players), who won,
// and why (`0-1 · Gote wins (checkmate)`), the players named by `names` (a
// game's `player_names`; this page's game's when none).
function resultWords(result, players, names) {
  let score = result.score;
  if (!score && players.length === 2) {
    const w = players.indexOf(result.winner);
    score = result.winner ? (w === 0 ? "1-0" : "0-1") : "½-½";
  }
  const named = names || (game && game.player_names) || {};
  const name = (p) => named[p] || p;
  const who = result.winner ? `${name(result.winner)} wins` : "Draw";
  const detail = result.detail ? `, ${result.detail}` : "";
  return `${score ? score + " · " : ""}${who} (${result.reason}${detail})`;
}

// A player's name as the rule file gives it (its id if none).
function nameOf(p) { return (game && game.player_names && game.player_names[p]) || p; }

function renderStatus() {
  const status = $("status");
  status.textContent = view
    ? `Looking at move ${view.ply} of ${view.plies}: › or → goes on`
    : game.result
    ? resultWords(game.result, game.players)
    : thinking
    ? `${nameOf(game.turn)} to move — ${seats[game.turn] === "random" ? "random mover" : "AI"} thinking… ${((Date.now() - thinking) / 1000).toFixed(1)} s`
    : noMoveFrom
    ? `${nameOf(game.turn)} to move — the piece on ${noMoveFrom} has no move`
    : game.seated && game.you && game.you !== game.turn
    ? `${nameOf(game.turn)} to move — waiting for your opponent`
    : `${nameOf(game.turn)} to move`;
}

function renderMoves() {
  const list = $("moves");
  list.innerHTML = "";
  const per = game.players.length === 2 ? 2 : 1;
  list.classList.toggle("single", per === 1);
  const current = view ? view.ply : game.plies;
  let li = null;
  game.record.forEach((name, i) => {
    if (i % per === 0) {
      li = document.createElement("li");
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = `${i / per + 1}. `;
      li.appendChild(n);
      list.appendChild(li);
    }
    const s = document.createElement("span");
    s.className = "m";
    s.textContent = name;
    s.dataset.ply = i + 1;
    s.setAttribute("role", "button");
    s.setAttribute("aria-label", `move ${Math.floor(i / per) + 1}${per === 2 ? (i % 2 ? " black" : " white") : ""}: ${name}`);
    if (current === i + 1) s.setAttribute("aria-current", "true");
    s.addEventListener("click", () => lookAt(i + 1));
    li.appendChild(s);
  });
  const at = list.querySelector("[aria-current]");
  if (at) {
    // Scrolled within the list only (the page stays where it is).
    const top = at.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + at.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = top - list.clientHeight / 2;
  }
  $("first").disabled = $("prev").disabled = current === 0;
  $("next").disabled = $("last").disabled = current >= game.plies;
}

function render() {
  if (!game) return;
  const shown = view || game;
  if (!view) drawn = game;
  // An explanation belongs to the position it was asked in.
  if (explainedAt !== shown) $("explained").textContent = "";
  $("title").textContent = shown.game;
  document.title = shown.game + " — chessalg";
  renderBoard(shown);
  renderStrips();
  const extra = $("extra");
  extra.innerHTML = "";
  if (!view && !game.result) {
    for (const m of game.legal.filter((m) => m.clicks.length === 0)) {
      const b = document.createElement("button");
      b.textContent = m.pass ? "Pass" : m.name;
      b.dataset.move = m.name;
      b.addEventListener("click", () => { if (!thinking) play(m.name); });
      extra.appendChild(b);
    }
  }
  renderMoves();
  $("fen").value = shown.fen;
  $("pgn").href = game.id === null ? "#" : `/api/games/${game.id}/pgn`;
  $("rules-link").href = game.id === null ? `/playground` : `/playground?game=${game.id}`;
  $("rules-link").hidden = false;
  renderStatus();
  renderWho();
  renderRoom();
}

// What the room shows besides the board: the seat and its watchers, the
// players' strips, the room's buttons (drawn without the board, which
// stays as it is under the pointer).
function renderRoom() {
  // (Without seats every page is a watcher, this one too: not counted.)
  const watchers = game.seated && game.watchers ? ` · ${game.watchers} watching` : "";
  const waiting = (game.open_seats || []).length ? " · waiting for an opponent to join" : "";
  const you = game.you && ((game.player_names && game.player_names[game.you]) || game.you);
  $("seat").textContent = (!game.seated ? "" : you ? `You play ${you}` : "Watching") + waiting + watchers;
  renderStrips();
  renderActions();
  renderStatus();
}

function renderWho() {
  const who = $("who");
  if (who.childElementCount) return;
  game.players.forEach((name) => {
    const label = document.createElement("label");
    label.append(` ${name}: `);
    const select = document.createElement("select");
    select.dataset.seat = name;
    for (const kind of ["human", "ai", "random"]) {
      const o = document.createElement("option");
      o.value = kind;
      o.textContent = kind === "ai" ? "AI" : kind;
      select.appendChild(o);
    }
    select.value = seats[name] || "human";
    select.addEventListener("change", () => { seats[name] = select.value; renderStrips(); maybeAi(); });
    label.appendChild(select);
    who.appendChild(label);
  });
}

// ---- The room: resign, draw, take back, rematch, claim.

// Asks the server for a room request; the answer is the game.
async function roomAsk(what, body) {
  try {
    const g = await api(`/api/games/${game.id}/${what}`, body || {});
    // The rematch made by this request: to it (a seat follows it anyway).
    if (what === "rematch" && g.rematch) { goRematch(g.rematch); return; }
    taken(g);
    showError(null);
  } catch (e) { showError(e); if (e.status === 409) await refresh(); }
  render();
}

function actionButton(label, run, primary, key) {
  const b = document.createElement("button");
  b.textContent = label;
  b.dataset.action = key || label.toLowerCase().replace(/\W+/g, "-");
  if (primary) b.className = "primary";
  b.addEventListener("click", run);
  $("actions").appendChild(b);
}

// The room's buttons for the page's player: what it may ask now, and the
// answers to what the opponent asks.
function renderActions() {
  $("actions").innerHTML = "";
  if (!game || game.id === null || view) return;
  const me = game.you;
  const playing = game.seated ? !!me : true;
  if (!playing) return;
  const other = (p) => p && p !== me;
  if (!game.result) {
    if (game.seated && (game.open_seats || []).length) return;
    actionButton("Resign", () => { if (confirm("Resign this game?")) roomAsk("resign"); }, false, "resign");
    if (game.seated) {
      if (other(game.draw_offer)) {
        actionButton("Accept draw", () => roomAsk("draw", { accept: true }), true, "accept-draw");
        actionButton("Decline draw", () => roomAsk("draw", { decline: true }), false, "decline-draw");
      } else if (game.draw_offer === me) {
        actionButton("Draw offered", () => {}, false, "draw-offered").disabled = true;
      } else {
        actionButton("Offer draw", () => roomAsk("draw", { offer: true }), false, "offer-draw");
      }
      if (other(game.takeback_ask)) {
        actionButton("Grant takeback", () => roomAsk("takeback", { grant: true }), true, "grant-takeback");
        actionButton("Decline takeback", () => roomAsk("takeback", { decline: true }), false, "decline-takeback");
      } else if (game.takeback_ask !== me && game.plies > 0) {
        actionButton("Ask for a takeback", () => roomAsk("takeback", { ask: true }), false, "ask-takeback");
      }
      const away = Object.entries(game.online || {}).find(([p, on]) => p !== me && !on);
      if (away && game.turn === away[0])
        actionButton(`Claim the win (${away[0]} has left)`, () => roomAsk("claim"), false, "claim");
    }
  } else if (game.rematch) {
    actionButton("Go to the rematch", () => goRematch(game.rematch), true, "to-rematch");
  } else if (other(game.rematch_ask)) {
    actionButton("Accept rematch", () => roomAsk("rematch"), true, "rematch");
  } else if (game.rematch_ask === me && game.seated) {
    actionButton("Rematch offered", () => {}, false, "rematch-offered").disabled = true;
  } else {
    actionButton("Rematch", () => roomAsk("rematch"), true, "rematch");
  }
}

// To the rematch: the same seat's link (the server passed each seat's
// token on to the next player) or, without seats, the game.
let leaving = false;
function goRematch(id) {
  if ((game && game.id === id) || leaving) return;
  leaving = true;
  location.href = `?game=${id}` + (token ? `&seat=${token}` : "");
}

// ---- The lobby's seeks: open seats to join, and one's own.

async function loadSeeks() {
  try {
    const list = await api("/api/seeks");
    const box = $("seeks");
    box.innerHTML = "";
    for (const k of list.seeks) {
      const row = document.createElement("div");
      row.className = "row";
      const mine = game && game.id === k.id;
      const words = document.createElement("span");
      words.textContent = `${k.variant || k.game} · ${k.clock || "no clock"} · ${k.waiting} waits` +
        ` · ${Math.round(k.age_ms / 60000)} min`;
      row.appendChild(words);
      if (!mine) {
        const b = document.createElement("button");
        b.textContent = `Join as ${k.open.join(", ")}`;
        b.dataset.join = k.id;
        b.addEventListener("click", () => joinSeek(k.id));
        row.appendChild(b);
      }
      box.appendChild(row);
    }
  } catch (e) { /* the list is a convenience */ }
}
setInterval(() => { if (!document.hidden) loadSeeks(); }, 5000);

async function seek() {
  const clock = $("clock").value.trim(), side = $("play-as").value;
  try {
    const made = await api("/api/seeks", { ...(clock ? { clock } : {}), side });
    const [, seat] = Object.entries(made.seats)[0];
    location.href = new URL(seat.url, location.href).href;
  } catch (e) { showError(e); }
}

async function joinSeek(id) {
  try {
    token = null;
    const joined = await api(`/api/seeks/${id}/join`, {});
    const [, seat] = Object.entries(joined.seats)[0];
    location.href = new URL(seat.url, location.href).href;
  } catch (e) { showError(e); loadSeeks(); }
}

// You against the AI on this page: the AI plays every other player.
async function playAi() {
  const side = $("play-as").value;
  const mine = side === "random" || !game ? null : side;
  const players = game ? game.players : [];
  const you = mine || players[Math.floor(Math.random() * players.length)] || players[0];
  for (const p of players) {
    seats[p] = p === you ? "human" : "ai";
    const s = document.querySelector(`[data-seat="${CSS.escape(p)}"]`);
    if (s) s.value = seats[p];
  }
  await newGame();
  flipped = players.indexOf(you) === 1;
  render();
}

// ---- Looking back and playing.

async function lookAt(ply) {
  clearChoice();
  ply = Math.max(0, Math.min(ply, game.plies));
  if (ply >= game.plies) { view = null; render(); return; }
  try { view = await api(`/api/games/${game.id}?ply=${ply}`); showError(null); } catch (e) { showError(e); }
  render();
}

async function play(name) {
  const dragged = draggedMove;
  view = null;
  try {
    const g = game.id === null ? await stored([name])
      : await api(`/api/games/${game.id}/move`, { move: name, plies: game.plies });
    clearChoice();
    taken(g, !dragged);
    showError(null);
  } catch (e) {
    showError(e);
    clearChoice();
    if (e.status === 409) await refresh();
    render();
  }
  maybeAi();
}

async function computerMove(random) {
  if (!game || game.result || thinking) return;
  view = null;
  clearChoice();
  thinking = Date.now();
  const tick = setInterval(renderStatus, 100);
  render();
  let answer = null;
  try {
    const seconds = Number($("time").value) || 1;
    await stored();
    answer = await api(`/api/games/${game.id}/ai`, { time_ms: Math.round(seconds * 1000), random, plies: game.plies });
    showError(null);
  } catch (e) {
    // Asked for a position no longer there (another tab's request came
    // first): the game as it is now, without an error.
    if (e.status === 409) await refresh(); else showError(e);
  }
  clearInterval(tick);
  thinking = null;
  taken(answer || game);
  renderStatus();
  maybeAi();
}

function maybeAi() {
  if (!game || game.result || thinking || view || game.seated) return;
  const seat = seats[game.turn];
  // Once per position: a reply and its event may both get here, and the
  // AI, quick, may have moved before the second call's turn comes.
  const version = game.version;
  if (seat === "ai" || seat === "random")
    setTimeout(() => { if (game && game.version === version) computerMove(seat === "random"); }, 50);
}

// How the rules derive a move in the position shown, or why they do not
// (`chessalg explain`), drawn as an indented list.
async function explainMove() {
  const name = $("why").value.trim();
  if (!name) return;
  const ply = view ? `&ply=${view.ply}` : "";
  try {
    const e = await api(`/api/games/${game.id}/explain?move=${encodeURIComponent(name)}${ply}`);
    const lines = [`${e.move}: ${e.verdict}`]
      .concat(e.lines.map((l) => "  ".repeat(l.depth + 1) + l.text + (l.place ? `   (${l.place})` : "")))
      .concat(e.attacked_by.map((a) => "  " + a));
    $("explained").textContent = lines.join("\n");
    explainedAt = view || game;
    showError(null);
  } catch (err) { $("explained").textContent = ""; showError(err); }
}

function flip() {
  flipped = !flipped;
  if (game) store.set(`chessalg.flip.${game.id}`, flipped ? "1" : "0");
  closePicker();
  render();
}

// Keys: ← → Home End through the moves, f to turn the board, Escape to
// drop a choice; typing elsewhere is left alone.
document.addEventListener("keydown", (e) => {
  if (!game || e.target.closest("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
  const current = view ? view.ply : game.plies;
  const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: game.plies }[e.key];
  if (to !== undefined) { e.preventDefault(); lookAt(to); return; }
  if (e.key === "f") flip();
  if (e.key === "Escape") { clearChoice(); premove = []; render(); }
});

$("type").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const text = $("type").value.trim();
  if (!text || !game) return;
  const legal = game.legal.find((m) => m.name.toLowerCase() === text.toLowerCase());
  $("type").value = "";
  play(legal ? legal.name : text);
});
$("new").addEventListener("click", () => newGame());
$("undo").addEventListener("click", async () => {
  view = null;
  try { taken(await api(`/api/games/${game.id}/undo`, {}), false); showError(null); } catch (e) { showError(e); }
  clearChoice(); render();
});
$("ai").addEventListener("click", () => computerMove(false));
$("flip").addEventListener("click", flip);
$("first").addEventListener("click", () => lookAt(0));
$("prev").addEventListener("click", () => lookAt((view ? view.ply : game.plies) - 1));
$("next").addEventListener("click", () => lookAt((view ? view.ply : game.plies) + 1));
$("last").addEventListener("click", () => lookAt(game.plies));
// The piece set: pictures of chess pieces and the characters rule files
// give (kanji, hanzi), or letters and symbols; kept for the next visit.
function showPieceSet() {
  const letters = store.get("chessalg.pieces") === "letters";
  document.body.classList.toggle("letters", letters);
  $("piece-set").value = letters ? "letters" : "traditional";
}
$("piece-set").addEventListener("change", () => {
  store.set("chessalg.pieces", $("piece-set").value);
  showPieceSet();
});
showPieceSet();
$("sound").addEventListener("click", () => {
  soundOn = !soundOn;
  store.set("chessalg.sound", soundOn ? "on" : "off");
  showSound();
  if (soundOn) sounds.move();
});
$("friend").addEventListener("click", playFriend);
$("seek").addEventListener("click", seek);
$("vsai").addEventListener("click", playAi);
$("explain").addEventListener("click", explainMove);
$("why").addEventListener("keydown", (e) => { if (e.key === "Enter") explainMove(); });
$("loadfen").addEventListener("click", () => newGame({ fen: $("fen").value.trim() }));
$("copyfen").addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(game.fen));
$("pgnfile").addEventListener("change", async () => {
  const file = $("pgnfile").files[0];
  if (file) await newGame({ pgn: await file.text() });
  $("pgnfile").value = "";
});

// A link names its game (`?game=ID`) and maybe a seat (`&seat=TOKEN`);
// else a new game.
async function start() {
  setupBoard();
  showSound();
  const info = await api("/api/info");
  Object.assign(seats, info.seats || {});
  serverGame = info.game;
  for (const p of info.players || []) {
    const o = document.createElement("option");
    o.value = p;
    o.textContent = (info.player_names && info.player_names[p]) || p;
    $("play-as").appendChild(o);
  }
  $("time").value = (info.time_ms || 1000) / 1000;
  $("time").max = (info.time_cap_ms || 10000) / 1000;
  if (info.clock) $("clock").value = `${info.clock.base_ms / 60000}+${info.clock.increment_ms / 1000}`;
  const params = new URLSearchParams(location.search);
  const id = params.get("game");
  token = params.get("seat");
  likeOf = params.get("like");
  loadLobby();
  loadSeeks();
  if (!id) { await newGame(likeOf ? {} : undefined); return; }
  try {
    setGame(await api(`/api/games/${encodeURIComponent(id)}`));
  } catch (e) { token = null; showError(e); await newGame(); return; }
  follow();
  render();
  maybeAi();
}
start().catch(showError);
