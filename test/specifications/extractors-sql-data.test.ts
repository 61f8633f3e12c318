// The SQL extractor on real sample databases shipped with their data (test/fixtures/README.md):
// Pagila's and Sakila's data-only files beside their schemas, Northwind (PostgreSQL, natural text
// keys, a join table with columns of its own) and Chinook (MySQL, NVARCHAR). Expectations come
// from reading the documents.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractSql } from '../../src/specifications/extractors/sql.ts';
import { loadPostgresParser, readPostgres } from '../../src/specifications/extractors/sql-postgres.ts';
import { CREATE_TABLE, splitSqlStatements, splitStatements } from '../../src/specifications/extractors/sql-statements.ts';
import { buildSpecification } from '../../src/specifications/build.ts';
import { detectKind } from '../../src/specifications/kind.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { findPartner } from '../../src/definition/relationships.ts';
import type { AppDefinition, Field, Model } from '../../src/definition/schema.ts';
import type { Draft, DraftField, DraftModel } from '../../src/specifications/extractors/types.ts';

const bytesOf = (file: string) => readFileSync(new URL(`../fixtures/sql/${file}`, import.meta.url));
const extract = (file: string, bytes: Uint8Array = bytesOf(file)): Promise<Draft> => extractSql({ attachmentId: 'att-1', name: file, kind: 'sql', bytes });
const sql = (text: string) => Buffer.from(text);

function model(draft: Draft, name: string): DraftModel {
  const found = draft.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${draft.models.map((m) => m.name).join(', ')}`);
  return found;
}
function field(draft: Draft, modelName: string, name: string): DraftField {
  const found = model(draft, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name} among ${model(draft, modelName).fields.map((f) => f.name).join(', ')}`);
  return found;
}
const messages = (draft: Draft) => draft.warnings.map((w) => `${w.locator}: ${w.message}`).join('\n');

function defModel(def: AppDefinition, name: string): Model {
  const found = def.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${def.models.map((m) => m.name).join(', ')}`);
  return found;
}
function defField(def: AppDefinition, modelName: string, name: string): Field {
  const found = defModel(def, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name} among ${defModel(def, modelName).fields.map((f) => f.name).join(', ')}`);
  return found;
}

describe('every table of each SQL document is a model or reported', () => {
  const documents = ['pagila-schema.sql', 'sakila-mysql-schema.sql', 'northwind-postgres.sql', 'chinook-mysql.sql'];
  for (const file of documents) {
    it(`${file}: tables in the document = models + partitions + tables left out`, async () => {
      const text = bytesOf(file).toString('utf8');
      const dialect = file.includes('mysql') ? 'mysql' : 'postgresql';
      const inDocument = (await splitStatements(text, dialect)).filter((s) => CREATE_TABLE.test(s.text)).length;
      const draft = await extract(file);
      const report = draft.warnings.find((w) => / tables? in the document: /.test(w.message))!.message;
      const partitions = Number(/(\d+) partitions? read as part of their parent/.exec(report)?.[1] ?? 0);
      const leftOut = /none left out/.test(report) ? 0 : (report.match(/line \d+: replaced/g) ?? []).length;
      expect(Number(/^(\d+) tables? in the document/.exec(report)?.[1])).toBe(inDocument);
      expect(draft.models.length + partitions + leftOut).toBe(inDocument);
    }, 30_000);
  }
});

describe('data-only SQL files (pg_dump --data-only, MySQL multi-row INSERTs)', () => {
  it('are SQL attachments, not text', async () => {
    for (const file of ['pagila-data.sql', 'sakila-mysql-data.sql']) {
      const bytes = bytesOf(file);
      expect(await detectKind(bytes.subarray(0, 64 * 1024), file, 'application/octet-stream', bytes.length)).toBe('sql');
    }
  });

  it('give no models and no error, and name the tables their rows are for', async () => {
    const pagila = await extract('pagila-data.sql');
    expect(pagila.models).toEqual([]);
    expect(messages(pagila)).toMatch(/data only, no CREATE TABLE: 21 statements of rows for 21 tables \(actor \(1 statement\), country \(1 statement\)/);
    expect(messages(pagila)).toMatch(/payment_p2022_07 \(1 statement\)/);
    const sakila = await extract('sakila-mysql-data.sql');
    expect(sakila.models).toEqual([]);
    expect(sakila.description).toMatch(/MySQL/);
    expect(messages(sakila)).toMatch(/rows for 15 tables \(actor \(1 statement\), address \(1 statement\)/);
    expect(messages(sakila)).toMatch(/3 routine, trigger or views skipped, statement by statement: trigger customer_create_date \(line 2214\)/);
  }, 30_000);

  it('beside their schema build the schema\'s models, with the data named in a warning', async () => {
    const built = await buildSpecification('Pagila', [
      { id: 'schema', name: 'pagila-schema.sql', kind: 'sql', bytes: bytesOf('pagila-schema.sql') },
      { id: 'data', name: 'pagila-data.sql', kind: 'sql', bytes: bytesOf('pagila-data.sql') },
    ]);
    expect(built.content.models.map((m) => m.name)).toContain('Film');
    expect(built.warnings.some((w) => w.attachmentId === 'data' && /data only/.test(w.message))).toBe(true);
    expect(() => validateDefinition(structuredClone(built.content))).not.toThrow();
  }, 30_000);

  it('name the parent of each partition their rows are for', async () => {
    await loadPostgresParser();
    const read = readPostgres(await splitStatements(bytesOf('pagila-schema.sql').toString('utf8'), 'postgresql'));
    expect(read.partitionParents['payment_p2022_01']).toBe('payment');
    expect(Object.keys(read.partitionParents)).toHaveLength(55);
  }, 30_000);

  it('read a COPY block whose rows hold backquotes as PostgreSQL', async () => {
    const draft = await extract('notes.sql', sql('COPY public.note (id, body) FROM stdin;\n1\tuse `ls`; then; go\n2\tit\\\'s\n\\.\n\nCOPY public.tag (id) FROM stdin;\n1\n\\.\n'));
    expect(draft.description).toMatch(/PostgreSQL/);
    expect(messages(draft)).toMatch(/2 statements of rows for 2 tables \(note \(1 statement\), tag \(1 statement\)\)/);
  });

  it('split with their COPY rows for a reader of the data', async () => {
    const statements = await splitSqlStatements(bytesOf('pagila-data.sql').toString('utf8'), 'postgresql');
    const actor = statements.find((s) => /^COPY public\.actor /.test(s.text))!;
    expect(actor.copyData?.rows).toHaveLength(200);
    expect(actor.copyData?.rows[0]).toMatch(/^1\tPENELOPE\tGUINESS\t/);
    expect(actor.copyData?.line).toBe(actor.line + 1);
    const payments = statements.filter((s) => /^COPY public\.payment_p2022_0\d /.test(s.text));
    expect(payments).toHaveLength(7);
    // the plain splitter keeps COPY's rows out of the statements
    expect((await splitStatements(bytesOf('pagila-data.sql').toString('utf8'), 'postgresql')).length).toBe(statements.length);
  }, 30_000);
});

describe('Northwind (PostgreSQL, schema and data)', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extract('northwind-postgres.sql');
  });

  it('keeps natural text keys as required unique fields', () => {
    expect(field(draft, 'customers', 'customer_id')).toMatchObject({ type: 'p_TEXT', required: true, unique: true });
    expect(field(draft, 'territories', 'territory_id')).toMatchObject({ type: 'p_TEXT', required: true, unique: true });
    expect(messages(draft)).toMatch(/natural keys kept .*customers\.customer_id/);
  });

  it('names foreign keys for what they point at', () => {
    expect(field(draft, 'orders', 'customer')).toMatchObject({ type: { model: 'customers' }, partner: 'orders' });
    expect(field(draft, 'orders', 'employee')).toMatchObject({ type: { model: 'employees' } });
    expect(field(draft, 'products', 'supplier')).toMatchObject({ type: { model: 'suppliers' }, partner: 'products' });
    expect(field(draft, 'employees', 'reports_to')).toMatchObject({ type: { model: 'employees' } });
  });

  it('makes order_details (quantity, price, discount) a model with two to-one relationships, employee_territories a join', () => {
    expect(model(draft, 'order_details').joinOf).toBeUndefined();
    expect(field(draft, 'order_details', 'order')).toMatchObject({ type: { model: 'orders' }, required: true, partner: 'order_details' });
    expect(field(draft, 'order_details', 'product')).toMatchObject({ type: { model: 'products' }, required: true });
    expect(field(draft, 'order_details', 'quantity')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(model(draft, 'employee_territories').joinOf).toEqual(['employees', 'territories']);
    expect(messages(draft)).toMatch(/rows for 12 tables \(categories \(8 statements\), customers \(91 statements\)/);
  });

  it('builds content where the natural key survives and each relationship has its partner', async () => {
    const built = await buildSpecification('Northwind', [{ id: 'nw', name: 'northwind.sql', kind: 'sql', bytes: bytesOf('northwind-postgres.sql') }]);
    const def = built.content;
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
    expect(defField(def, 'Customer', 'customerId')).toMatchObject({ to: 'p_TEXT', min: 1 });
    expect(built.warnings.some((w) => /Customer\.customerId is a key of the document: a unique index/.test(w.message) && w.path !== undefined)).toBe(true);
    expect(defModel(def, 'Customer').indexes).toEqual([{ fields: [defField(def, 'Customer', 'customerId').id], unique: true }]);
    const orderDetail = defModel(def, 'OrderDetail');
    const order = defField(def, 'OrderDetail', 'order');
    expect(order.to).toBe(defModel(def, 'Order').id);
    expect(findPartner(def, orderDetail, order)?.name).toBe('orderDetails');
    expect(findPartner(def, defModel(def, 'Order'), defField(def, 'Order', 'customer'))?.name).toBe('orders');
    expect(defField(def, 'Employee', 'territories').max).toBeNull();
  }, 30_000);
});

describe('Chinook (MySQL, schema and data)', () => {
  it('reads NVARCHAR columns, names keys for their targets, and keeps InvoiceLine a model', async () => {
    const draft = await extract('chinook-mysql.sql');
    expect(draft.description).toMatch(/^MySQL schema: 11 tables/);
    expect(field(draft, 'Artist', 'Name')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(field(draft, 'Album', 'Artist')).toMatchObject({ type: { model: 'Artist' }, required: true, partner: 'Albums' });
    expect(field(draft, 'Customer', 'SupportRepId')).toMatchObject({ type: { model: 'Employee' } });
    expect(field(draft, 'InvoiceLine', 'Track')).toMatchObject({ type: { model: 'Track' }, required: true });
    expect(field(draft, 'InvoiceLine', 'Quantity')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(model(draft, 'PlaylistTrack').joinOf).toEqual(['Playlist', 'Track']);
  }, 30_000);
});

describe('SQL read statement by statement', () => {
  it('names keys of an HR schema by their targets and qualifiers; a pairing with dates of its own is a model', async () => {
    const draft = await extract('hr.sql', sql(`
CREATE TABLE employees (emp_no INT PRIMARY KEY, name TEXT NOT NULL, manager_emp_no INT REFERENCES employees (emp_no));
CREATE TABLE departments (dept_no CHAR(4) PRIMARY KEY, dept_name TEXT NOT NULL);
CREATE TABLE dept_emp (emp_no INT NOT NULL REFERENCES employees (emp_no), dept_no CHAR(4) NOT NULL REFERENCES departments (dept_no),
  from_date DATE NOT NULL, to_date DATE NOT NULL, PRIMARY KEY (emp_no, dept_no));
CREATE TABLE dept_manager (emp_no INT NOT NULL REFERENCES employees (emp_no), dept_no CHAR(4) NOT NULL REFERENCES departments (dept_no),
  from_date DATE NOT NULL, to_date DATE NOT NULL, PRIMARY KEY (emp_no, dept_no));
CREATE TABLE stops (stop_no INT PRIMARY KEY, name TEXT);
CREATE TABLE transfers (id INT PRIMARY KEY, from_stop_no INT REFERENCES stops (stop_no), to_stop_no INT REFERENCES stops (stop_no));
`));
    expect(field(draft, 'employees', 'manager')).toMatchObject({ type: { model: 'employees' } });
    expect(field(draft, 'transfers', 'from_stop')).toMatchObject({ type: { model: 'stops' }, partner: 'transfers_as_from_stop' });
    expect(field(draft, 'transfers', 'to_stop')).toMatchObject({ type: { model: 'stops' }, partner: 'transfers_as_to_stop' });
    expect(field(draft, 'dept_emp', 'employee')).toMatchObject({ type: { model: 'employees' }, partner: 'dept_emps' });
    expect(field(draft, 'dept_emp', 'department')).toMatchObject({ type: { model: 'departments' }, partner: 'dept_emps' });
    expect(field(draft, 'dept_manager', 'employee')).toMatchObject({ partner: 'dept_managers' });
    expect(model(draft, 'dept_emp').joinOf).toBeUndefined();
    expect(field(draft, 'departments', 'dept_no')).toMatchObject({ unique: true, required: true });
    const built = await buildSpecification('HR', [{ id: 'hr', name: 'hr.sql', kind: 'sql', bytes: sql(`
CREATE TABLE employees (emp_no INT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE departments (dept_no CHAR(4) PRIMARY KEY, dept_name TEXT NOT NULL);
CREATE TABLE dept_emp (emp_no INT NOT NULL REFERENCES employees (emp_no), dept_no CHAR(4) NOT NULL REFERENCES departments (dept_no), from_date DATE NOT NULL, PRIMARY KEY (emp_no, dept_no));
CREATE TABLE dept_manager (emp_no INT NOT NULL REFERENCES employees (emp_no), dept_no CHAR(4) NOT NULL REFERENCES departments (dept_no), from_date DATE NOT NULL, PRIMARY KEY (emp_no, dept_no));
`) }]);
    const def = built.content;
    // two pairings of the same two tables: each a model, each relationship with its partner, no `departments2`
    expect(findPartner(def, defModel(def, 'DeptEmp'), defField(def, 'DeptEmp', 'employee'))?.name).toBe('deptEmps');
    expect(findPartner(def, defModel(def, 'DeptManager'), defField(def, 'DeptManager', 'department'))?.name).toBe('deptManagers');
    expect(defModel(def, 'Employee').fields.map((f) => f.name)).not.toContain('departments2');
    expect(defField(def, 'DeptEmp', 'fromDate')).toMatchObject({ to: 'p_DATE', min: 1 });
  }, 30_000);

  it('sets aside MySQL storage attributes and fails on a table it still cannot read, with its line', async () => {
    const draft = await extract('attrs.sql', sql(`
CREATE TABLE \`account\` (
  \`id\` INT(10) UNSIGNED ZEROFILL NOT NULL AUTO_INCREMENT,
  \`login\` VARCHAR(40) BINARY CHARACTER SET latin1 COLLATE latin1_bin NOT NULL COMMENT 'sign-in name',
  \`changed\` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (\`id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;
DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=\`root\`@\`localhost\`*/ /*!50003 TRIGGER \`account_touch\` BEFORE UPDATE ON \`account\` FOR EACH ROW SET NEW.changed = NOW() */;;
DELIMITER ;
/*!50001 CREATE TABLE \`account_view\` (\`login\` tinyint NOT NULL) ENGINE=MyISAM */;
`));
    expect(field(draft, 'account', 'login')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(draft.models.map((m) => m.name)).toEqual(['account']);
    expect(messages(draft)).toMatch(/view stand-in table account_view \(line 11\)/);
    expect(messages(draft)).toMatch(/line 2: storage attributes .*: BINARY/);
    expect(messages(draft)).toMatch(/trigger account_touch \(line 9\)/);
    await expect(extract('broken.sql', sql('CREATE TABLE `a` (`id` INT PRIMARY KEY);\n\nCREATE TABLE `b` (`x` INT WHATEVER STRANGE THING, `a_id` INT REFERENCES `a` (`id`));\n')))
      .rejects.toThrow(/1 CREATE TABLE statement could not be read as MySQL: line 3 \(CREATE TABLE `b`\).*foreign keys/);
    // beside another attachment that reads, the specification fails all the same
    await expect(buildSpecification('X', [
      { id: 'ok', name: 'ok.sql', kind: 'sql', bytes: sql('CREATE TABLE pet (id int primary key, name text);') },
      { id: 'bad', name: 'broken.sql', kind: 'sql', bytes: sql('CREATE TABLE `a` (`id` INT PRIMARY KEY);\nCREATE TABLE `b` (`x` INT WHATEVER STRANGE THING);\n') },
    ])).rejects.toThrow(/^broken\.sql \(sql\) could not be read: 1 CREATE TABLE statement could not be read as MySQL: line 2/);
  }, 30_000);

  it('with force, leaves out a table that cannot be read, saying which and where, and keeps the rest of a real schema', async () => {
    // Sakila's schema with its customer table spoilt by one column the grammar cannot read.
    const text = bytesOf('sakila-mysql-schema.sql').toString('utf8').replace('  active BOOLEAN NOT NULL DEFAULT TRUE,', '  active BOOLEAN WHATEVER STRANGE THING,');
    const line = text.split('\n').findIndex((l) => l.startsWith('CREATE TABLE customer (')) + 1;
    await expect(extract('sakila.sql', sql(text))).rejects.toThrow(new RegExp(`could not be read as MySQL: line ${line} \\(CREATE TABLE customer\\)`));
    const draft = await extractSql({ attachmentId: 'att-1', name: 'sakila.sql', kind: 'sql', bytes: sql(text), force: true });
    expect(draft.models.map((m) => m.name)).not.toContain('customer');
    expect(draft.models).toHaveLength(15);
    expect(draft.warnings).toContainEqual({ locator: `line ${line}`, message: expect.stringMatching(/^CREATE TABLE customer could not be read as MySQL.*: left out, as asked \(force\); a foreign key pointing at it is kept as a plain column$/) });
    // The keys that pointed at customer are plain columns, each said; every table is a model, a join or left out.
    expect(field(draft, 'payment', 'customer_id')).toMatchObject({ type: 'p_NUMBER' });
    expect(field(draft, 'rental', 'customer_id')).toMatchObject({ type: 'p_NUMBER' });
    expect(messages(draft)).toMatch(/table payment, column customer_id: references customer/);
    expect(messages(draft)).toMatch(new RegExp(`16 tables in the document: 13 models .*; 2 join tables .*; left out: customer \\(line ${line}: not readable, left out with force\\)`));
    // beside the data, the specification builds, with the warning passed on
    const built = await buildSpecification('Sakila', [{ id: 's', name: 'sakila.sql', kind: 'sql', bytes: sql(text) }], undefined, undefined, { force: true });
    expect(built.content.models.map((m) => m.name)).not.toContain('Customer');
    expect(built.warnings.some((w) => w.locator === `line ${line}` && /left out, as asked \(force\)/.test(w.message))).toBe(true);
  }, 30_000);
});
