/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lua_fix.c - a live patch for Lua 5.4's math.abs (the static math_abs
 * of lmathlib.c), for t/109-trace-lua-hooks.t: built as a shared library
 * against Lua's own headers, it resolves the Lua API (lua_pushinteger,
 * luaL_checkinteger) from the program that loads it, a lua linked with
 * -Wl,-E as Debian links its own.  Its answer is the absolute value plus
 * 1000, so that each line of the script tells which code ran.
 */
#include "lua.h"
#include "lauxlib.h"

int lua_fix_abs(lua_State *L);

int lua_fix_abs(lua_State *L)
{
	lua_Integer n = luaL_checkinteger(L, 1);
	lua_pushinteger(L, (n < 0 ? -n : n) + 1000);
	return 1;
}
