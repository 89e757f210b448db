// SPDX-License-Identifier: MIT
/*
 * sh - Spindle's shell: a small subset of the POSIX shell language.
 *
 *   sh                  interactive: read commands from the terminal
 *   sh FILE [ARG]...    run a script ($0 = FILE, $1... = the ARGs)
 *   sh -c 'CMDS' [ARG0 [ARG]...]
 *   sh -e ...           exit at the first command that fails (also `set -e`)
 *
 * What a line may hold:
 *   words, 'single quotes' (literal), "double quotes" ($ expands inside),
 *   backslash escapes, # comments, $VAR ${VAR} $? $$ $0..$9 $#,
 *   VAR=value (alone: sets a shell variable; before a command: only for it),
 *   pipelines a | b | c, lists a ; b, a && b, a || b,
 *   redirections < > >> 2> 2>> 2>&1 >&2 (any fd number before them).
 * Builtins: cd, exit, export, unset, set -e/+e, pwd, echo [-n], true,
 * false (so that the shell is usable with no other program, as in
 * USERLAND=own).  Everything else is a program found through $PATH
 * (default /bin).
 * Not done: if/while/for, functions, globbing, field splitting of $VAR
 * (an unquoted $VAR stays one word), background jobs (&), here-documents.
 *
 * How a line runs.  The lexer (lex_line) cuts the line into words and
 * operators, keeping each word's raw text; a word is expanded (quotes
 * removed, variables replaced) only when its command is about to run, so
 * that in `false; echo $?` the $? sees the false.  run_list walks the
 * operators: it runs one pipeline at a time and decides from && and ||
 * whether the next one runs.
 *
 * Job control, as far as Ctrl-C needs it (interactive shells only): each
 * pipeline gets a process group of its own and becomes the terminal's
 * foreground group (TIOCSPGRP), so the console sends ^C's SIGINT to it and
 * not to the shell; the shell ignores SIGINT itself and takes the terminal
 * back when the job ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <limits.h>
#include <sys/wait.h>
#include <sys/stat.h>

#define MAX_TOKENS   256
#define MAX_ARGS     128
#define MAX_REDIRS   8
#define MAX_PIPE     16
#define LINE_MAX_LEN 4096

enum tok_type { T_WORD, T_SEMI, T_AND, T_OR, T_PIPE, T_REDIR, T_END };

/* a redirection: fd `fd` becomes `path` opened with `flags`, or a copy of `dup_fd` */
struct redir {
	int fd;
	int flags;                      /* open(2) flags; -1 for a dup */
	int dup_fd;
	const char *word;               /* raw target word, expanded when run */
};

struct token {
	enum tok_type type;
	char *text;                     /* T_WORD: raw text, quotes still in it */
	struct redir redir;             /* T_REDIR (its word is the next token) */
};

struct command {
	char *words[MAX_ARGS];          /* raw words, assignments first */
	int nwords;
	struct redir redirs[MAX_REDIRS];
	int nredirs;
};

/* --- shell state --- */

static int last_status;                 /* $? */
static int errexit;                     /* set -e */
static int interactive;
static int shell_pgrp;
static char *script_args[10];           /* $0..$9 */
static int script_argc;                 /* how many of $0..$9 are set */
static int script_nargs;                /* $# + 1: all the arguments */

/* shell variables that are not exported: a short list of "NAME=value" */
#define MAX_VARS 64
static char *vars[MAX_VARS];

static void die_oom(void)
{
	fputs("sh: out of memory\n", stderr);
	exit(2);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die_oom();
	return d;
}

static int valid_name(const char *s, size_t n)
{
	if (!n || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static char **var_slot(const char *name, size_t n)
{
	for (int i = 0; i < MAX_VARS; i++)
		if (vars[i] && strncmp(vars[i], name, n) == 0 && vars[i][n] == '=')
			return &vars[i];
	return NULL;
}

static const char *var_get(const char *name, size_t n)
{
	char **slot = var_slot(name, n);
	char buf[256];

	if (slot)
		return *slot + n + 1;
	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return getenv(buf);
}

/* NAME=value: an exported variable stays exported; others are shell-local */
static void var_set(const char *assign)
{
	size_t n = strcspn(assign, "=");
	char name[256], **slot;

	if (n >= sizeof(name))
		return;
	memcpy(name, assign, n);
	name[n] = '\0';
	if (getenv(name)) {
		setenv(name, assign + n + 1, 1);
		return;
	}
	slot = var_slot(assign, n);
	if (!slot)
		for (int i = 0; i < MAX_VARS && !slot; i++)
			if (!vars[i])
				slot = &vars[i];
	if (!slot) {
		fputs("sh: too many variables\n", stderr);
		return;
	}
	free(*slot);
	*slot = xstrdup(assign);
}

static void var_unset(const char *name)
{
	char **slot = var_slot(name, strlen(name));

	if (slot) {
		free(*slot);
		*slot = NULL;
	}
	unsetenv(name);
}

/* --- expansion: quote removal and $ --- */

struct strbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct strbuf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			die_oom();
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_addc(struct strbuf *b, char c)
{
	sb_add(b, &c, 1);
}

/* expand the $... at *pp (just past the '$'), advance *pp past it */
static void expand_dollar(const char **pp, struct strbuf *out)
{
	const char *p = *pp;
	char num[24];

	if (*p == '?') {
		snprintf(num, sizeof(num), "%d", last_status);
		sb_add(out, num, strlen(num));
		*pp = p + 1;
	} else if (*p == '$') {
		snprintf(num, sizeof(num), "%d", getpid());
		sb_add(out, num, strlen(num));
		*pp = p + 1;
	} else if (*p == '#') {
		snprintf(num, sizeof(num), "%d", script_nargs > 0 ? script_nargs - 1 : 0);
		sb_add(out, num, strlen(num));
		*pp = p + 1;
	} else if (*p >= '0' && *p <= '9') {
		int i = *p - '0';

		if (i < script_argc && script_args[i])
			sb_add(out, script_args[i], strlen(script_args[i]));
		*pp = p + 1;
	} else if (*p == '{') {
		const char *end = strchr(p, '}');
		const char *v;

		if (!end) {                     /* no closing brace: a literal '$' */
			sb_addc(out, '$');
			return;
		}
		if (end == p + 2 && !valid_name(p + 1, 1)) {
			/* ${1}, ${?}, ...: the special ones, braced */
			const char *inner = p + 1;

			expand_dollar(&inner, out);
			*pp = end + 1;
			return;
		}
		v = var_get(p + 1, (size_t)(end - p - 1));
		if (v)
			sb_add(out, v, strlen(v));
		*pp = end + 1;
	} else if (valid_name(p, 1)) {
		size_t n = 1;
		const char *v;

		while (valid_name(p, n + 1))
			n++;
		v = var_get(p, n);
		if (v)
			sb_add(out, v, strlen(v));
		*pp = p + n;
	} else {
		sb_addc(out, '$');              /* "$" alone, or "$/" ... */
	}
}

/*
 * Expand one raw word: remove quotes and backslashes, replace $... .
 * Returns a malloc'ed string, or NULL when the word vanishes (an unquoted
 * expansion that came out empty, as in `echo $UNSET`).
 */
static char *expand_word(const char *p)
{
	struct strbuf out = { 0 };
	int quoted = 0;

	sb_add(&out, "", 0);
	while (*p) {
		if (*p == '\\') {
			if (p[1])
				sb_addc(&out, p[1]), p += 2;
			else
				p++;
			quoted = 1;
		} else if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			sb_add(&out, p + 1, (size_t)(end - p - 1));
			p = end + 1;
			quoted = 1;
		} else if (*p == '"') {
			quoted = 1;
			for (p++; *p && *p != '"';) {
				/* inside "", a backslash escapes only $ ` " \ and newline */
				if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
					sb_addc(&out, p[1]);
					p += 2;
				} else if (*p == '$') {
					p++;
					expand_dollar(&p, &out);
				} else {
					sb_addc(&out, *p++);
				}
			}
			if (*p == '"')
				p++;
		} else if (*p == '$') {
			p++;
			expand_dollar(&p, &out);
		} else {
			sb_addc(&out, *p++);
		}
	}
	if (!out.len && !quoted) {
		free(out.s);
		return NULL;
	}
	return out.s;
}

/* --- the lexer --- */

static int is_op_char(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '<' || c == '>';
}

/* length of the raw word at p (quotes kept), or -1 for an unterminated quote */
static int word_length(const char *p)
{
	const char *s = p;

	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && !is_op_char(*p)) {
		if (*p == '\\') {
			p += p[1] ? 2 : 1;
		} else if (*p == '\'' || *p == '"') {
			char q = *p++;

			while (*p && *p != q)
				p += (q == '"' && *p == '\\' && p[1]) ? 2 : 1;
			if (!*p)
				return -1;
			p++;
		} else {
			p++;
		}
	}
	return (int)(p - s);
}

/*
 * Scan a redirection operator at p, with `fd` the number written before
 * it (-1: none).  Fills r, returns the operator's length, 0 if none.
 */
static int lex_redir(const char *p, int fd, struct redir *r)
{
	r->dup_fd = -1;
	if ((p[0] == '>' || p[0] == '<') && p[1] == '&' && p[2] >= '0' && p[2] <= '9') {
		int len = 2;

		r->fd = fd < 0 ? (p[0] == '>') : fd;
		r->flags = -1;
		r->dup_fd = 0;
		while (p[len] >= '0' && p[len] <= '9' && r->dup_fd < 10000)
			r->dup_fd = r->dup_fd * 10 + (p[len++] - '0');
		return len;
	}
	if (p[0] == '>' && p[1] == '>') {
		r->fd = fd < 0 ? 1 : fd;
		r->flags = O_WRONLY | O_CREAT | O_APPEND;
		return 2;
	}
	if (p[0] == '>') {
		r->fd = fd < 0 ? 1 : fd;
		r->flags = O_WRONLY | O_CREAT | O_TRUNC;
		return 1;
	}
	if (p[0] == '<') {
		r->fd = fd < 0 ? 0 : fd;
		r->flags = O_RDONLY;
		return 1;
	}
	return 0;
}

/*
 * Cut `line` into tokens; each word's raw text is a malloc'ed copy (freed
 * by free_tokens).  Returns the number of tokens, -1 on a syntax error.
 */
static int lex_line(const char *line, struct token *toks, int max)
{
	const char *p = line;
	int n = 0;

	for (;;) {
		struct token *t = &toks[n];
		const char *q;
		int len;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		t->type = T_END;
		t->text = NULL;
		if (!*p || *p == '#')
			return n;
		if (n == max - 1) {
			fputs("sh: line too long\n", stderr);
			return -1;
		}
		for (q = p; *q >= '0' && *q <= '9'; q++)
			;
		if (p[0] == '&' && p[1] == '&') {
			t->type = T_AND, p += 2;
		} else if (p[0] == '|' && p[1] == '|') {
			t->type = T_OR, p += 2;
		} else if (*p == '|') {
			t->type = T_PIPE, p++;
		} else if (*p == ';') {
			t->type = T_SEMI, p++;
		} else if (*p == '&') {
			fputs("sh: background jobs (&) are not supported\n", stderr);
			return -1;
		} else if ((len = lex_redir(p, -1, &t->redir)) > 0) {
			t->type = T_REDIR, p += len;
		} else if (q > p && q - p < 3 && (len = lex_redir(q, atoi(p), &t->redir)) > 0) {
			t->type = T_REDIR, p = q + len;        /* 2>file, 2>&1 */
		} else {
			len = word_length(p);
			if (len < 0) {
				fputs("sh: unterminated quote\n", stderr);
				return -1;
			}
			t->type = T_WORD;
			t->text = strndup(p, (size_t)len);
			if (!t->text)
				die_oom();
			p += len;
		}
		n++;
	}
}

static void free_tokens(struct token *toks)
{
	for (; toks->type != T_END; toks++)
		free(toks->text);
}

/* --- running commands --- */

/* A job gets ^C and ^\ back; ^Z stays ignored: this shell has no job
 * control (no fg, bg or WUNTRACED wait), and a stopped job would hang it,
 * as POSIX lets a shell without job control leave SIGTSTP ignored. */
static void restore_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTTOU, SIG_DFL);
	signal(SIGTTIN, SIG_DFL);
}

/* apply the redirections of a command (in the child); -1 on failure */
static int apply_redirs(const struct command *c)
{
	for (int i = 0; i < c->nredirs; i++) {
		const struct redir *r = &c->redirs[i];
		int fd;

		if (r->flags < 0) {
			if (dup2(r->dup_fd, r->fd) < 0) {
				fprintf(stderr, "sh: %d: %s\n", r->dup_fd, strerror(errno));
				return -1;
			}
			continue;
		}
		char *path = expand_word(r->word);

		if (!path) {
			fputs("sh: ambiguous redirect\n", stderr);
			return -1;
		}
		fd = open(path, r->flags, 0666);
		if (fd < 0) {
			fprintf(stderr, "sh: %s: %s\n", path, strerror(errno));
			free(path);
			return -1;
		}
		free(path);
		if (fd != r->fd) {
			dup2(fd, r->fd);
			close(fd);
		}
	}
	return 0;
}

/* a word of the form NAME=... (before the command name) */
static int is_assignment(const char *w)
{
	const char *eq = strchr(w, '=');

	return eq && valid_name(w, (size_t)(eq - w));
}

/* expand words into argv (assignments skipped); returns argc */
static int build_argv(const struct command *c, int first, char **argv)
{
	int argc = 0;

	for (int i = first; i < c->nwords && argc < MAX_ARGS - 1; i++) {
		char *w = expand_word(c->words[i]);

		if (w)
			argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

static void free_argv(char **argv)
{
	for (; *argv; argv++)
		free(*argv);
}

/* exec a program in this (child) process; never returns */
static void exec_program(char **argv)
{
	int e;

	if (!getenv("PATH"))
		setenv("PATH", "/bin", 1);
	execvp(argv[0], argv);
	e = errno;
	if (e == ENOENT)
		fprintf(stderr, "sh: %s: not found\n", argv[0]);
	else
		fprintf(stderr, "sh: %s: %s\n", argv[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

static int builtin(char **argv, int in_child);
static int is_builtin(const char *name);

/*
 * In the child, after fork: join the job's process group (pgid 0 = become
 * the leader), apply the redirections and the NAME=value prefixes, then run
 * the builtin or exec the program.
 */
static void run_child(const struct command *c, pid_t pgid)
{
	char *argv[MAX_ARGS];
	int first = 0, status;

	if (interactive) {
		setpgid(0, pgid);
		/* the terminal too, before the program can read it: were the
		 * parent's tcsetpgrp() still to come, the read would find us
		 * in the background and stop us with SIGTTIN */
		tcsetpgrp(0, pgid ? pgid : getpid());
		restore_signals();
	}
	if (apply_redirs(c) < 0)
		_exit(1);
	while (first < c->nwords && is_assignment(c->words[first])) {
		char *a = expand_word(c->words[first++]);
		char *eq = strchr(a, '=');

		*eq = '\0';
		setenv(a, eq + 1, 1);
	}
	if (build_argv(c, first, argv) == 0)
		_exit(0);
	status = builtin(argv, 1);
	if (status >= 0) {
		fflush(stdout);
		_exit(status);
	}
	exec_program(argv);
}

/* the shell's status for a wait() status: exit code, or 128 + signal */
static int decode_status(int st)
{
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);

		if (sig != SIGINT && sig != SIGPIPE)
			fprintf(stderr, "%s\n", strsignal(sig));
		return 128 + sig;
	}
	return WEXITSTATUS(st);
}

/* take the terminal back for the shell after a foreground job */
static void reclaim_terminal(void)
{
	if (interactive)
		tcsetpgrp(0, shell_pgrp);
}

/* run a pipeline of n commands; returns its status (the last one's) */
static int run_pipeline(struct command *cmds, int n)
{
	pid_t pids[MAX_PIPE], pgid = 0;
	int in = -1, status = 0, failed = 0;

	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < n; i++) {
		int fds[2] = { -1, -1 };
		pid_t pid;

		if (i < n - 1 && pipe(fds) < 0) {
			perror("sh: pipe");
			failed = 1;
		} else if ((pid = fork()) < 0) {
			perror("sh: fork");
			if (fds[0] >= 0) {
				close(fds[0]);
				close(fds[1]);
			}
			failed = 1;
		}
		if (failed) {
			/* reap the stages already started, then report failure */
			if (in >= 0)
				close(in);
			n = i;
			break;
		}
		if (pid == 0) {
			if (in >= 0) {
				dup2(in, 0);
				close(in);
			}
			if (fds[1] >= 0) {
				dup2(fds[1], 1);
				close(fds[1]);
				close(fds[0]);
			}
			run_child(&cmds[i], pgid);
		}
		/* the parent sets the group too: whoever runs first, it is set */
		if (interactive) {
			if (!pgid)
				pgid = pid;
			setpgid(pid, pgid);
			if (i == 0)
				tcsetpgrp(0, pgid);
		}
		pids[i] = pid;
		if (in >= 0)
			close(in);
		if (fds[1] >= 0)
			close(fds[1]);
		in = fds[0];
	}
	for (int i = 0; i < n; i++) {
		int st = 0;

		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (i == n - 1)
			status = decode_status(st);
	}
	reclaim_terminal();
	return failed ? 1 : status;
}

/* a lone command: assignments and builtins run in the shell itself */
static int run_simple(struct command *c)
{
	char *argv[MAX_ARGS];
	int first = 0, status;

	while (first < c->nwords && is_assignment(c->words[first]))
		first++;
	if (first == c->nwords && c->nredirs == 0) {
		for (int i = 0; i < c->nwords; i++) {
			char *a = expand_word(c->words[i]);

			var_set(a);
			free(a);
		}
		return 0;
	}
	if (first == 0 && build_argv(c, 0, argv) > 0) {
		if (is_builtin(argv[0])) {
			/*
			 * A builtin changes the shell itself (cd, exit, export), so it
			 * runs here, not in a child: its redirections are applied to
			 * the shell's own descriptors and undone afterwards.
			 */
			int saved[3] = { dup(0), dup(1), dup(2) };

			fflush(stdout);
			status = apply_redirs(c) < 0 ? 1 : builtin(argv, 0);
			fflush(stdout);
			fflush(stderr);
			for (int fd = 0; fd < 3; fd++) {
				if (saved[fd] >= 0) {
					dup2(saved[fd], fd);
					close(saved[fd]);
				}
			}
			free_argv(argv);
			return status;
		}
		free_argv(argv);
	}
	return run_pipeline(c, 1);
}

static int builtin_cd(char **argv)
{
	const char *dir = argv[1] ? argv[1] : getenv("HOME");

	if (!dir)
		dir = "/";
	if (chdir(dir) < 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int builtin_export(char **argv)
{
	for (int i = 1; argv[i]; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq) {
			*eq = '\0';
			var_unset(argv[i]);
			setenv(argv[i], eq + 1, 1);
			*eq = '=';
		} else {
			const char *v = var_get(argv[i], strlen(argv[i]));

			setenv(argv[i], v ? v : "", 1);
		}
	}
	if (!argv[1])
		for (char **e = environ; *e; e++)
			printf("export %s\n", *e);
	return 0;
}

/* echo [-n] ARG...: the arguments, separated by spaces; -n: no newline */
static int builtin_echo(char **argv)
{
	int newline = 1, i = 1;

	if (argv[i] && strcmp(argv[i], "-n") == 0) {
		newline = 0;
		i++;
	}
	for (int first = i; argv[i]; i++) {
		if (i > first)
			putchar(' ');
		fputs(argv[i], stdout);
	}
	if (newline)
		putchar('\n');
	return fflush(stdout) ? 1 : 0;
}

/* run a builtin; returns its status, or -1 if argv[0] is not one */
static int is_builtin(const char *name)
{
	static const char *const names[] = { "exit", "cd", "export", "unset", "set", "pwd",
					     "echo", "true", "false" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

static int builtin(char **argv, int in_child)
{
	const char *name = argv[0];

	if (strcmp(name, "exit") == 0) {
		int code = argv[1] ? atoi(argv[1]) : last_status;

		if (in_child)
			return code & 0xff;
		fflush(stdout);
		exit(code & 0xff);
	}
	if (strcmp(name, "cd") == 0)
		return builtin_cd(argv);
	if (strcmp(name, "export") == 0)
		return builtin_export(argv);
	if (strcmp(name, "unset") == 0) {
		for (int i = 1; argv[i]; i++)
			var_unset(argv[i]);
		return 0;
	}
	if (strcmp(name, "set") == 0) {
		for (int i = 1; argv[i]; i++) {
			if (strcmp(argv[i], "-e") == 0)
				errexit = 1;
			else if (strcmp(argv[i], "+e") == 0)
				errexit = 0;
		}
		return 0;
	}
	if (strcmp(name, "echo") == 0)
		return builtin_echo(argv);
	if (strcmp(name, "true") == 0)
		return 0;
	if (strcmp(name, "false") == 0)
		return 1;
	if (strcmp(name, "pwd") == 0) {
		char buf[PATH_MAX];

		if (!getcwd(buf, sizeof(buf))) {
			perror("sh: pwd");
			return 1;
		}
		puts(buf);
		return 0;
	}
	return -1;
}

/*
 * Gather the pipeline starting at toks[*i] into cmds; leaves *i on the
 * operator that ended it.  Returns the number of commands, -1 on error.
 */
static int parse_pipeline(struct token *toks, int *i, struct command *cmds)
{
	int n = 0;

	memset(&cmds[0], 0, sizeof(cmds[0]));
	for (;; (*i)++) {
		struct token *t = &toks[*i];
		struct command *c = &cmds[n];

		if (t->type == T_WORD) {
			if (c->nwords == MAX_ARGS - 1) {
				fputs("sh: too many arguments\n", stderr);
				return -1;
			}
			c->words[c->nwords++] = t->text;
		} else if (t->type == T_REDIR) {
			if (c->nredirs == MAX_REDIRS) {
				fputs("sh: too many redirections\n", stderr);
				return -1;
			}
			c->redirs[c->nredirs] = t->redir;
			if (t->redir.flags >= 0) {
				if (toks[*i + 1].type != T_WORD) {
					fputs("sh: syntax error: redirection without a file\n", stderr);
					return -1;
				}
				c->redirs[c->nredirs].word = toks[++*i].text;
			}
			c->nredirs++;
		} else if (t->type == T_PIPE) {
			if (!c->nwords && !c->nredirs) {
				fputs("sh: syntax error near '|'\n", stderr);
				return -1;
			}
			if (++n == MAX_PIPE) {
				fputs("sh: pipeline too long\n", stderr);
				return -1;
			}
			memset(&cmds[n], 0, sizeof(cmds[n]));
		} else {
			break;
		}
	}
	if (!cmds[n].nwords && !cmds[n].nredirs)
		return n == 0 ? 0 : -1;
	return n + 1;
}

/*
 * Run a lexed line: pipelines joined by ; && ||.  `skip` is set when the
 * previous && or || decided the next pipeline must not run (its status
 * then stays what it was).  With set -e, a failing pipeline that is not
 * the left side of && or || ends the shell.
 */
static void run_list(struct token *toks)
{
	struct command cmds[MAX_PIPE];
	int i = 0, skip = 0;

	for (;;) {
		int n = parse_pipeline(toks, &i, cmds);
		enum tok_type op = toks[i].type;

		if (n < 0) {
			last_status = 2;
			return;
		}
		if (n > 0 && !skip) {
			last_status = n == 1 ? run_simple(&cmds[0]) : run_pipeline(cmds, n);
			if (errexit && last_status && op != T_AND && op != T_OR)
				exit(last_status);
		} else if (n == 0 && op != T_END && op != T_SEMI) {
			fputs("sh: syntax error near && or ||\n", stderr);
			last_status = 2;
			return;
		}
		if (op == T_END)
			return;
		/* a skipped pipeline leaves $? alone, so this also holds after a skip */
		if (op == T_AND)
			skip = last_status != 0;
		else if (op == T_OR)
			skip = last_status == 0;
		else
			skip = 0;
		i++;
	}
}

static void run_line(const char *line)
{
	struct token toks[MAX_TOKENS];

	if (lex_line(line, toks, MAX_TOKENS) < 0)
		last_status = 2;
	else
		run_list(toks);
	free_tokens(toks);
}

/* read one line from fd 0 a byte at a time, so children see the rest */
static int read_line(char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		char c;
		ssize_t r = read(0, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n == size - 1) {
			/* too long: drop the rest of it, never run it as a
			 * second command */
			if (c != '\n')
				continue;
			fputs("sh: line too long\n", stderr);
			last_status = 2;
			buf[0] = '\0';
			return 1;
		}
		buf[n++] = c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	return n > 0;
}

/* run every line of a script held in memory */
static void run_text(char *text)
{
	while (text && *text) {
		char *nl = strchr(text, '\n');

		if (nl)
			*nl = '\0';
		run_line(text);
		text = nl ? nl + 1 : NULL;
	}
}

static char *read_file(const char *path)
{
	struct strbuf b = { 0 };
	char chunk[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	sb_add(&b, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		sb_add(&b, chunk, (size_t)n);
	close(fd);
	return b.s;
}

static void interactive_loop(void)
{
	char line[LINE_MAX_LEN];

	shell_pgrp = getpid();
	setpgid(0, shell_pgrp);
	tcsetpgrp(0, shell_pgrp);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	for (;;) {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			strcpy(cwd, "?");
		printf("%s # ", cwd);
		fflush(stdout);
		if (!read_line(line, sizeof(line))) {
			putchar('\n');
			break;
		}
		run_line(line);
	}
}

static void set_args(char **argv, int argc)
{
	script_nargs = argc;                    /* $# counts them all ... */
	script_argc = argc < 10 ? argc : 10;    /* ... $0..$9 name the first */
	for (int i = 0; i < script_argc; i++)
		script_args[i] = argv[i];
}

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "-c")) {
		if (strcmp(argv[i], "-e") == 0)
			errexit = 1;
		i++;
	}
	if (i < argc && strcmp(argv[i], "-c") == 0) {
		char *cmds;

		if (i + 1 >= argc) {
			fputs("sh: -c: option requires an argument\n", stderr);
			return 2;
		}
		cmds = xstrdup(argv[i + 1]);
		if (i + 2 < argc)
			set_args(argv + i + 2, argc - i - 2);
		else
			set_args(argv, 1);
		run_text(cmds);
	} else if (i < argc) {
		char *text = read_file(argv[i]);

		if (!text) {
			fprintf(stderr, "sh: %s: %s\n", argv[i], strerror(errno));
			return 127;
		}
		set_args(argv + i, argc - i);
		run_text(text);
	} else {
		set_args(argv, 1);
		interactive = isatty(0);
		if (interactive)
			interactive_loop();
		else {
			char line[LINE_MAX_LEN];

			while (read_line(line, sizeof(line)))
				run_line(line);
		}
	}
	return last_status;
}
