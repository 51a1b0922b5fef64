-- Drives Neovim's built-in LSP client (0.7+, no plugins) against
-- `chessalg lsp` on the current buffer; writes what it saw to $OUT as JSON.
-- Run by tests/lsp.rs.
local out = {}
local ok, err = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  local start = vim.loop.hrtime()
  local client_id = vim.lsp.start_client({
    name = "chessalg",
    cmd = { os.getenv("CHESSALG"), "lsp" },
    root_dir = vim.fn.expand("%:p:h"),
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 5)
  out.first_diagnostic_ms = (vim.loop.hrtime() - start) / 1e6
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message })
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local uri = vim.uri_from_bufnr(bufnr)
  local line = vim.api.nvim_buf_get_lines(bufnr, 2, 3, false)[1]
  local byte = line:find("sovereign)", 1, true) - 1
  local position = { line = 2, character = vim.str_utfindex(line, byte) }
  local params = { textDocument = { uri = uri }, position = position }
  local r = client.request_sync("textDocument/hover", params, 10000, bufnr)
  out.hover = r.result.contents.value
  r = client.request_sync("textDocument/definition", params, 10000, bufnr)
  out.definition = r.result
  r = client.request_sync("textDocument/formatting",
    { textDocument = { uri = uri }, options = { tabSize = 4, insertSpaces = true } }, 10000, bufnr)
  out.formatting = r.result
end)
if not ok then out.error = tostring(err) end
local f = io.open(os.getenv("OUT"), "w")
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd("qall!")
