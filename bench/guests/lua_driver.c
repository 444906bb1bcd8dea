/* An interpreter people use: Debian's liblua5.4.a (linked statically into
 * this static glibc program) runs the Lua program below, a mix of what Lua
 * scripts spend their time on: calls and returns (recursive fib), table
 * reads and writes (a sieve), closures called from table.sort, and
 * string building and matching.  Lua 5.4's VM dispatches every bytecode
 * through an indirect jump (a computed goto with GCC), so this is the
 * indirect-jump-heavy real program of the benchmarks.  glibc makes its own
 * calls, so this runs in the pre-strict personality.
 * argv: ROUNDS (default 10).  Prints a checksum of the results; exit 0, or
 * 1 if Lua reported an error. */
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

static const char program[] =
    "local rounds = ...\n"
    "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
    "local function sieve(n)\n"
    "  local composite, count = {}, 0\n"
    "  for i = 2, n do\n"
    "    if not composite[i] then\n"
    "      count = count + 1\n"
    "      for j = i * i, n, i do composite[j] = true end\n"
    "    end\n"
    "  end\n"
    "  return count\n"
    "end\n"
    "local function sorted(n, seed)\n"
    "  local t, x = {}, seed\n"
    "  for i = 1, n do x = (x * 1103515245 + 12345) % 2147483648; t[i] = x end\n"
    "  table.sort(t, function(a, b) return a % 1000 < b % 1000 or (a % 1000 == b % 1000 and a < b) end)\n"
    "  return t[1] + t[n // 2] + t[n]\n"
    "end\n"
    "local function words(n)\n"
    "  local parts = {}\n"
    "  for i = 1, n do parts[#parts + 1] = string.format('w%d:%x', i, i * 7919) end\n"
    "  local s, hits = table.concat(parts, ' '), 0\n"
    "  for a, b in s:gmatch('w(%d+):(%x+)') do if tonumber(b, 16) % 3 == 0 then hits = hits + #a end end\n"
    "  return hits + #s\n"
    "end\n"
    "local sum = 0\n"
    "for r = 1, rounds do\n"
    "  sum = (sum * 31 + fib(24) + sieve(200000) + sorted(20000, r) + words(20000)) % 4294967296\n"
    "end\n"
    "return sum\n";

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "lua_driver: ROUNDS must be 1 to 100000\n");
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "lua_driver: out of memory\n");
        return 2;
    }
    luaL_openlibs(L);
    if (luaL_loadbuffer(L, program, sizeof(program) - 1, "bench") != LUA_OK) {
        fprintf(stderr, "lua_driver: %s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_pushinteger(L, rounds);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "lua_driver: %s\n", lua_tostring(L, -1));
        return 1;
    }
    printf("checksum %016llx\n", (unsigned long long)lua_tointeger(L, -1));
    lua_close(L);
    return 0;
}
