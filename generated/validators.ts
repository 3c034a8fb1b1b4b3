/**
 * Generated validators (compiled at generate time from the schemas) by keiyaku from asyncapi.yaml: Library integration events 1.2.0 (AsyncAPI 3.0.0).
 * Do not edit: change the contract and run `keiyaku generate`; `keiyaku generate --check` fails when this file is stale.
 */
// @ts-nocheck -- plain JavaScript validators; the typed surface is in messages.ts
import { validatorRuntime } from "@keiyaku/runtime/codegen-v1";

const { report: $r, type: $t, required: $q, formatError: $f, prefix: $x, failed: $s, escape: $esc, length: $len, equal: $eq, unique: $uniq, mergeItems: $mi, root: $root, format: $format, isObject: $o } = validatorRuntime;
const $f_date_time=$format("date-time");
const $f_uuid=$format("uuid");

function v_BookBorrowedPayload(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.bookId===undefined||d.copyId===undefined||d.borrower===undefined||d.borrowedAt===undefined||d.dueAt===undefined||d.channel===undefined)ok=$q(E,"",d,["bookId","copyId","borrower","borrowedAt","dueAt","channel"]);
		if(d.bookId!==undefined&&!v_BookId(d.bookId,E))ok=$x(E,"/bookId");
		const d2=d.copyId;
		if(d2!==undefined)if(typeof d2!=="string")ok=$t(E,"/copyId","string");else if(d2.length<2&&$len(d2)<1)ok=$r(E,"/copyId","minLength",1);
		if(d.borrower!==undefined&&!v_Member(d.borrower,E))ok=$x(E,"/borrower");
		const d4=d.borrowedAt;
		if(d4!==undefined)if(typeof d4!=="string")ok=$t(E,"/borrowedAt","string");else if(!$f_date_time(d4))ok=$f(E,"/borrowedAt","date-time");
		if(d.dueAt!==undefined)if(typeof d.dueAt!=="string")ok=$t(E,"/dueAt","string");else if(!$f_date_time(d.dueAt))ok=$f(E,"/dueAt","date-time");
		const d6=d.channel;
		if(d6!==undefined){
			if(typeof d6!=="string")ok=$t(E,"/channel","string");
			if(d6!=="desk"&&d6!=="self-service"&&d6!=="app")ok=$r(E,"/channel","enum",["desk","self-service","app"]);
		}
		const d7=d.renewals;
		if(d7!==undefined){
			if(!Number.isInteger(d7))ok=$t(E,"/renewals","integer");else{
				if(d7<0)ok=$r(E,"/renewals","minimum",0);
				if(d7>3)ok=$r(E,"/renewals","maximum",3);
			}
		}
		const d8=d.note;
		if(d8!==undefined){
			if(typeof d8!=="string"&&d8!==null)ok=$t(E,"/note","string,null");
			if(typeof d8==="string"){
				if(d8.length>500&&$len(d8)>500)ok=$r(E,"/note","maxLength",500);
			}
		}
	}
	return ok||$s(E,s);
}
export const validateBookBorrowedPayload=$root(v_BookBorrowedPayload);

function v_BookId(d,E){const s=E.length;let ok=true;
	if(typeof d!=="string")ok=$t(E,"","string");else if(!$f_uuid(d))ok=$f(E,"","uuid");
	return ok||$s(E,s);
}

function v_BookReturnedPayload(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.bookId===undefined||d.copyId===undefined||d.memberId===undefined||d.returnedAt===undefined||d.condition===undefined)ok=$q(E,"",d,["bookId","copyId","memberId","returnedAt","condition"]);
		if(d.bookId!==undefined&&!v_BookId(d.bookId,E))ok=$x(E,"/bookId");
		const d2=d.copyId;
		if(d2!==undefined)if(typeof d2!=="string")ok=$t(E,"/copyId","string");else if(d2.length<2&&$len(d2)<1)ok=$r(E,"/copyId","minLength",1);
		if(d.memberId!==undefined&&!v_MemberId(d.memberId,E))ok=$x(E,"/memberId");
		const d4=d.returnedAt;
		if(d4!==undefined)if(typeof d4!=="string")ok=$t(E,"/returnedAt","string");else if(!$f_date_time(d4))ok=$f(E,"/returnedAt","date-time");
		const d5=d.condition;
		if(d5!==undefined){
			if(typeof d5!=="string")ok=$t(E,"/condition","string");
			if(d5!=="good"&&d5!=="worn"&&d5!=="damaged")ok=$r(E,"/condition","enum",["good","worn","damaged"]);
		}
		if(d.lateFee!==undefined&&!v_BookReturnedPayloadLateFee(d.lateFee,E))ok=$x(E,"/lateFee");
	}
	return ok||$s(E,s);
}
export const validateBookReturnedPayload=$root(v_BookReturnedPayload);

const v_BookReturnedPayloadLateFee$0=new RegExp("^[A-Z]{3}$","u");
function v_BookReturnedPayloadLateFee(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.amount===undefined||d.currency===undefined)ok=$q(E,"",d,["amount","currency"]);
		const d1=d.amount;
		if(d1!==undefined)if(typeof d1!=="number"||!isFinite(d1))ok=$t(E,"/amount","number");else if(d1<=0)ok=$r(E,"/amount","exclusiveMinimum",0);
		const d2=d.currency;
		if(d2!==undefined)if(typeof d2!=="string")ok=$t(E,"/currency","string");else if(!v_BookReturnedPayloadLateFee$0.test(d2))ok=$r(E,"/currency","pattern","^[A-Z]{3}$");
		for(const k3 in d){
			let mk3=false;
			if(k3==="amount"||k3==="currency")mk3=true;
			if(!mk3)ok=$r(E,"","additionalProperties",k3);
		}
	}
	return ok||$s(E,s);
}

function v_CopiesCountedPayload(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.bookId===undefined||d.title===undefined||d.onLoan===undefined)ok=$q(E,"",d,["bookId","title","onLoan"]);
		if(d.bookId!==undefined&&!v_BookId(d.bookId,E))ok=$x(E,"/bookId");
		if(d.title!==undefined&&typeof d.title!=="string")ok=$t(E,"/title","string");
		if(d.onLoan!==undefined)if(!Number.isInteger(d.onLoan))ok=$t(E,"/onLoan","integer");else if(d.onLoan<0)ok=$r(E,"/onLoan","minimum",0);
	}
	return ok||$s(E,s);
}
export const validateCopiesCountedPayload=$root(v_CopiesCountedPayload);

function v_CopiesRequestedHeaders(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.replyTo===undefined)ok=$q(E,"",d,["replyTo"]);
		const d1=d.replyTo;
		if(d1!==undefined)if(typeof d1!=="string")ok=$t(E,"/replyTo","string");else if(d1.length<2&&$len(d1)<1)ok=$r(E,"/replyTo","minLength",1);
	}
	return ok||$s(E,s);
}
export const validateCopiesRequestedHeaders=$root(v_CopiesRequestedHeaders);

function v_CopiesRequestedPayload(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.bookId===undefined)ok=$q(E,"",d,["bookId"]);
		if(d.bookId!==undefined&&!v_BookId(d.bookId,E))ok=$x(E,"/bookId");
	}
	return ok||$s(E,s);
}
export const validateCopiesRequestedPayload=$root(v_CopiesRequestedPayload);

function v_DueDateReminderPayload(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.memberId===undefined||d.loans===undefined)ok=$q(E,"",d,["memberId","loans"]);
		if(d.memberId!==undefined&&!v_MemberId(d.memberId,E))ok=$x(E,"/memberId");
		const d2=d.loans;
		if(d2!==undefined){
			if(!Array.isArray(d2))ok=$t(E,"/loans","array");else{
				if(d2.length<1)ok=$r(E,"/loans","minItems",1);
				for(let i3=0;i3<d2.length;i3++){
					const d4=d2[i3];
					if(!v_DueDateReminderPayloadLoansItem(d4,E))ok=$x(E,"/loans/"+i3);
				}
			}
		}
	}
	return ok||$s(E,s);
}
export const validateDueDateReminderPayload=$root(v_DueDateReminderPayload);

function v_DueDateReminderPayloadLoansItem(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.bookId===undefined||d.dueAt===undefined)ok=$q(E,"",d,["bookId","dueAt"]);
		if(d.bookId!==undefined&&!v_BookId(d.bookId,E))ok=$x(E,"/bookId");
		if(d.title!==undefined&&typeof d.title!=="string")ok=$t(E,"/title","string");
		if(d.dueAt!==undefined)if(typeof d.dueAt!=="string")ok=$t(E,"/dueAt","string");else if(!$f_date_time(d.dueAt))ok=$f(E,"/dueAt","date-time");
	}
	return ok||$s(E,s);
}

function v_EventHeaders(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else if(d.correlationId!==undefined&&typeof d.correlationId!=="string")ok=$t(E,"/correlationId","string");
	return ok||$s(E,s);
}
export const validateEventHeaders=$root(v_EventHeaders);

function v_Member(d,E){const s=E.length;let ok=true;
	if(!$o(d))ok=$t(E,"","object");else{
		if(d.memberId===undefined)ok=$q(E,"",d,["memberId"]);
		if(d.memberId!==undefined&&!v_MemberId(d.memberId,E))ok=$x(E,"/memberId");
		const d2=d.displayName;
		if(d2!==undefined)if(typeof d2!=="string")ok=$t(E,"/displayName","string");else if(d2.length>80&&$len(d2)>80)ok=$r(E,"/displayName","maxLength",80);
	}
	return ok||$s(E,s);
}

const v_MemberId$0=new RegExp("^M-[0-9]{4,}$","u");
function v_MemberId(d,E){const s=E.length;let ok=true;
	if(typeof d!=="string")ok=$t(E,"","string");else if(!v_MemberId$0.test(d))ok=$r(E,"","pattern","^M-[0-9]{4,}$");
	return ok||$s(E,s);
}
