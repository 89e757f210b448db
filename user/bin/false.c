// SPDX-License-Identifier: MIT
/* false - do nothing, unsuccessfully. */
int main(void)
{
	return 1;
}
