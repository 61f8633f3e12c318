// Computed fields inside SQL when their expression is within a small, safe subset: record fields,
// literals, `now`, `env.X`, + - * on numbers, + on text, comparisons, && || !, ?:, size() and the
// string tests. Anything else (division, macros, conversions, ...) is evaluated after the fetch
// with the expressions module (computed-js.ts), so both ways give the same values.
import { sql, type RawBuilder } from 'kysely';
import type { ASTNode } from '../../expressions/index.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { fieldSql, param, type SqlType } from './columns.ts';
import { compiledComputed } from './expressions.ts';

type Kind = 'text' | 'float8' | 'boolean' | 'timestamptz' | 'null';
interface Typed {
  sql: RawBuilder<unknown>;
  kind: Kind;
}

class Refused extends Error {}

const TEXT_LIKE: ReadonlySet<SqlType> = new Set(['text', 'date', 'time', 'uuid']);

/** The computed field as SQL on the row `alias` with its result type, or null when it is evaluated in JS. */
export function computedSql(
  app: CompiledApp,
  model: CompiledModel,
  field: CompiledField,
  alias: string,
  known: { now: Date; env: Record<string, string> },
): { sql: RawBuilder<unknown>; type: SqlType } | null {
  const compiled = compiledComputed(app, model, field);
  if (!compiled) return null;
  try {
    const typed = new Translator(app, model, alias, known, field.name).node(compiled.ast);
    if (typed.kind === 'null') return { sql: sql`cast(null as text)`, type: 'text' };
    return { sql: typed.sql, type: typed.kind };
  } catch (error) {
    if (error instanceof Refused) return null;
    throw error;
  }
}

class Translator {
  constructor(
    private readonly app: CompiledApp,
    private readonly model: CompiledModel,
    private readonly alias: string,
    private readonly known: { now: Date; env: Record<string, string> },
    private readonly self: string,
  ) {}

  node(n: ASTNode): Typed {
    switch (n.op) {
      case 'value':
        return this.literal(n.args);
      case 'id':
        if (n.args === 'now') return { sql: param(this.known.now, 'timestamptz'), kind: 'timestamptz' };
        throw new Refused();
      case '.':
        return this.member(n.args[0], n.args[1]);
      case '+':
      case '-':
      case '*': {
        const [a, b] = [this.node(n.args[0]), this.node(n.args[1])];
        if (n.op === '+' && a.kind === 'text' && b.kind === 'text') return { sql: sql`(${a.sql} || ${b.sql})`, kind: 'text' };
        if (a.kind !== 'float8' || b.kind !== 'float8') throw new Refused();
        return { sql: sql`(${a.sql} ${sql.raw(n.op)} ${b.sql})`, kind: 'float8' };
      }
      case '-_': {
        const a = this.node(n.args);
        if (a.kind !== 'float8') throw new Refused();
        return { sql: sql`(- ${a.sql})`, kind: 'float8' };
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.compare(n.op, this.node(n.args[0]), this.node(n.args[1]));
      case '&&':
      case '||': {
        const [a, b] = [this.bool(n.args[0]), this.bool(n.args[1])];
        return { sql: sql`(${a} ${sql.raw(n.op === '&&' ? 'and' : 'or')} ${b})`, kind: 'boolean' };
      }
      case '!_':
        return { sql: sql`(not ${this.bool(n.args)})`, kind: 'boolean' };
      case '?:': {
        const c = this.bool(n.args[0]);
        const [a, b] = [this.node(n.args[1]), this.node(n.args[2])];
        const kind = a.kind === 'null' ? b.kind : a.kind;
        if (b.kind !== kind && b.kind !== 'null') throw new Refused();
        // An undecidable condition (NULL, a CEL error) gives null, not the else branch.
        return { sql: sql`(case when ${c} then ${a.sql} when not ${c} then ${b.sql} end)`, kind };
      }
      case 'call':
        if (n.args[0] === 'size' && n.args[1].length === 1) return this.size(this.node(n.args[1][0]));
        throw new Refused();
      case 'rcall': {
        const [name, receiver, args] = n.args;
        if (name === 'size' && args.length === 0) return this.size(this.node(receiver));
        if ((name === 'contains' || name === 'startsWith' || name === 'endsWith') && args.length === 1) {
          const [s, x] = [this.node(receiver), this.node(args[0])];
          if (s.kind !== 'text' || x.kind !== 'text') throw new Refused();
          if (name === 'contains') return { sql: sql`(strpos(${s.sql}, ${x.sql}) > 0)`, kind: 'boolean' };
          if (name === 'startsWith') return { sql: sql`starts_with(${s.sql}, ${x.sql})`, kind: 'boolean' };
          return { sql: sql`(right(${s.sql}, char_length(${x.sql})) = ${x.sql})`, kind: 'boolean' };
        }
        throw new Refused();
      }
      default:
        throw new Refused();
    }
  }

  private literal(value: unknown): Typed {
    if (value === null) return { sql: sql`null`, kind: 'null' };
    if (typeof value === 'string') return { sql: param(value, 'text'), kind: 'text' };
    if (typeof value === 'boolean') return { sql: param(value, 'boolean'), kind: 'boolean' };
    if (typeof value === 'number' || typeof value === 'bigint') {
      const number = Number(value);
      // Beyond 2^53 doubles and CEL ints part ways: leave it to CEL.
      if (!Number.isSafeInteger(number) && typeof value === 'bigint') throw new Refused();
      return { sql: param(number, 'float8'), kind: 'float8' };
    }
    throw new Refused();
  }

  private member(target: ASTNode, name: string): Typed {
    if (target.op === 'id' && target.args === 'env') {
      const value = Object.hasOwn(this.known.env, name) ? this.known.env[name] : null;
      return { sql: param(value, 'text'), kind: 'text' };
    }
    if (target.op !== 'id' || target.args !== 'record' || name === this.self) throw new Refused();
    const f = fieldSql(this.app, this.model, name, this.alias);
    if (f.kind !== 'scalar') throw new Refused(); // lists, other computed fields
    if (f.type === 'float8' || f.type === 'boolean' || f.type === 'timestamptz') return { sql: f.sql, kind: f.type };
    if (!TEXT_LIKE.has(f.type)) throw new Refused();
    if (f.type === 'date') return { sql: sql`to_char(${f.sql}, 'YYYY-MM-DD')`, kind: 'text' };
    if (f.type === 'time') return { sql: sql`to_char(${f.sql}, 'HH24:MI:SS')`, kind: 'text' };
    return { sql: f.type === 'text' ? f.sql : sql`${f.sql}::text`, kind: 'text' };
  }

  private compare(op: string, a: Typed, b: Typed): Typed {
    if (a.kind !== b.kind && a.kind !== 'null' && b.kind !== 'null') throw new Refused();
    if (op === '==') return { sql: sql`(${a.sql} is not distinct from ${b.sql})`, kind: 'boolean' };
    if (op === '!=') return { sql: sql`(${a.sql} is distinct from ${b.sql})`, kind: 'boolean' };
    if (a.kind === 'null' || b.kind === 'null' || a.kind === 'boolean') throw new Refused();
    return { sql: sql`(${a.sql} ${sql.raw(op)} ${b.sql})`, kind: 'boolean' };
  }

  private bool(n: ASTNode): RawBuilder<unknown> {
    const typed = this.node(n);
    if (typed.kind !== 'boolean') throw new Refused();
    return typed.sql;
  }

  private size(target: Typed): Typed {
    if (target.kind !== 'text') throw new Refused();
    return { sql: sql`cast(char_length(${target.sql}) as float8)`, kind: 'float8' };
  }
}
