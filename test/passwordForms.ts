// Connection strings with a password, in the shapes people type them (issue 30): the redaction's cases.

/** Connection strings in the shapes people type, each with the password it holds. */
export const PASSWORD_FORMS: [string, string][] = [
  ['postgresql://u:Pw0rd1@h:5432/db', 'Pw0rd1'],
  ['mysql://u:Pw0rd2@h/db', 'Pw0rd2'],
  ['http://u:Pw0rd3@h', 'Pw0rd3'],
  ['postgresql:/u:Pw0rd4@h/db', 'Pw0rd4'],
  ['u:Pw0rd5@h/db', 'Pw0rd5'],
  ['postgres://u:p%40w0rd6@h', 'p%40w0rd6'],
  ['postgres://u:p@w0rd7@h/db', 'p@w0rd7'],
  ['postgresql://u@h/db?sslmode=disable&password=Pw0rd8', 'Pw0rd8'],
  ['host=h port=5432 password=Pw0rd9 dbname=x', 'Pw0rd9'],
  ["host=h password='Pw 0rd10' dbname=x", 'Pw 0rd10'],
  ['Server=h;Uid=u;Pwd=Pw0rd11;Database=x', 'Pw0rd11'],
  ['postgres://u:/Pw0rd12@h/db', '/Pw0rd12'],
  // No host after the `@` (issue 30's second pass: printed as typed).
  ['mysql://u:Pw0rd13@', 'Pw0rd13'],
  ['postgresql://u:Pw0rd14@:5432', 'Pw0rd14'],
];
